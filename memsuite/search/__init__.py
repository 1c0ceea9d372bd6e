"""Layer 6, search: a query analysed, candidates scored and merged, passages and snippets, recall."""
