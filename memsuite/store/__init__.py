"""Layer 5, store: one memory folder opened, kept in step with its Markdown, read."""
