"""Layer 6, links (beside search, never importing it): entities, their graph, its layout and drawings."""
