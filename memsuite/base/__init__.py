"""Layer 1, base: records and errors, shared patterns, options, JSON output, atomic files. Imports nothing of the package."""
