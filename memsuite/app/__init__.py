"""Layer 7, app: what every door shares: commands, the brief, capture, the page, the watcher."""
