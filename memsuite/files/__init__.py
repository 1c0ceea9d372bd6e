"""Layer 3, files: which Markdown files there are, how they are read, chunked and added to."""
