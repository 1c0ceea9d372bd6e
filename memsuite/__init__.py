"""The code behind memory_store.py, memory_search.py and memory_linker.py, one concern a file."""
