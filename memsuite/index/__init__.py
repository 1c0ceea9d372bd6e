"""Layer 4, index: what a backend stores (records, prepared chunks) and the three backends below."""
