"""The JSON backend: the fallback where SQLite has no FTS5."""
