"""The PostgreSQL backend: one memory shared by a team (optional driver)."""
