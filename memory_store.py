"""Where memories are kept: the front door to the files, the tokenizer and the index.

    >>> from memory_store import MemoryStore
    >>> store = MemoryStore("~/notes")      # doctest: +SKIP
    >>> store.refresh()                     # cheap when nothing changed

The Markdown files are the source of truth; the index can always be rebuilt
from them, and nothing writes to them except `append_memory` (`add`).  The
code lives in the package `memsuite/`, one concern a file (the README's "How
it works" has the map); this module names the public part and loads each
piece only when it is first used, so a search pays only for what it needs.
"""
from memsuite import front_door

__all__ = [
    "Params", "DEFAULT_PARAMS", "StoreError", "UsageError", "record", "tokenize", "index_terms",
    "stem", "is_cjk", "term_spans", "fold", "term_grams", "bm25_idf", "bm25_weight", "log_tf",
    "resolve_memory_dir", "discover", "read_memory_lines", "safe_join", "split_lines",
    "mask_private", "file_date", "parse_reference", "is_heading", "chunk_markdown", "cite",
    "Chunk", "StoredChunk", "SyncReport", "Filters", "MemoryStore", "append_memory",
]

# Where each public name lives (memsuite/<module>.py).
_HOMES = {
    "StoreError": "records",
    "UsageError": "records",
    "record": "records",
    "Params": "params",
    "DEFAULT_PARAMS": "params",
    "is_cjk": "chinese",
    "fold": "chinese",
    "stem": "stemmer",
    "tokenize": "tokenizer",
    "index_terms": "tokenizer",
    "term_spans": "tokenizer",
    "term_grams": "tokenizer",
    "bm25_idf": "bm25",
    "bm25_weight": "bm25",
    "log_tf": "bm25",
    "split_lines": "markdown",
    "mask_private": "markdown",
    "is_heading": "markdown",
    "parse_reference": "citations",
    "cite": "citations",
    "resolve_memory_dir": "sources",
    "discover": "sources",
    "read_memory_lines": "sources",
    "safe_join": "sources",
    "file_date": "sources",
    "chunk_markdown": "chunker",
    "Chunk": "chunker",
    "StoredChunk": "index_records",
    "SyncReport": "index_records",
    "Filters": "index_records",
    "MemoryStore": "store",
    "append_memory": "notes",
}
# Other names (for tests and tools) are looked up in these modules, in order.
_MODULES = ("records", "params", "patterns", "chinese", "stemmer", "tokenizer", "bm25",
            "markdown", "citations", "sources", "transcripts", "chunker", "index_records",
            "prepare", "fileio", "sqlite_index", "sqlite_writer", "json_index", "json_writer",
            "link_tables", "embedding_tables", "store", "notes", "options", "jsonout", "cli")


__getattr__ = front_door(globals(), _HOMES, _MODULES)
