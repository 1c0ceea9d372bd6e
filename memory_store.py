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

# Where each public name lives (memsuite/<layer>/<module>.py).
_HOMES = {
    "StoreError": "base.records",
    "UsageError": "base.records",
    "record": "base.records",
    "Params": "text.params",
    "DEFAULT_PARAMS": "text.params",
    "is_cjk": "text.chinese",
    "fold": "text.chinese",
    "stem": "text.stemmer",
    "tokenize": "text.tokenizer",
    "index_terms": "text.tokenizer",
    "term_spans": "text.tokenizer",
    "term_grams": "text.tokenizer",
    "bm25_idf": "text.bm25",
    "bm25_weight": "text.bm25",
    "log_tf": "text.bm25",
    "split_lines": "text.markdown",
    "mask_private": "text.markdown",
    "is_heading": "text.markdown",
    "parse_reference": "text.citations",
    "cite": "text.citations",
    "resolve_memory_dir": "files.sources",
    "discover": "files.sources",
    "read_memory_lines": "files.sources",
    "safe_join": "files.sources",
    "file_date": "files.sources",
    "chunk_markdown": "files.chunker",
    "Chunk": "files.chunker",
    "StoredChunk": "index.records",
    "SyncReport": "index.records",
    "Filters": "index.records",
    "MemoryStore": "store.memory_store",
    "append_memory": "files.notes",
}
# Other names (for tests and tools) are looked up in these modules, in order.
_MODULES = ("base.records", "text.params", "base.patterns", "text.chinese", "text.stemmer", "text.tokenizer", "text.bm25",
            "text.markdown", "text.citations", "files.sources", "files.transcripts", "files.chunker", "index.records",
            "index.prepare", "base.fileio", "index.sqlite.index", "index.sqlite.writer", "index.json.index", "index.json.writer",
            "index.link_tables", "index.embedding_tables", "store.memory_store", "files.notes", "base.options", "base.display", "base.jsonout", "app.commands")


__getattr__ = front_door(globals(), _HOMES, _MODULES)
