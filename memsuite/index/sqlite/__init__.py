"""The SQLite backend (the default): FTS5 for keywords, blocks of term vectors."""
