"""Layer 8, doors: the command line, the MCP server and the agents' hooks."""
