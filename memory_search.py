"""How memories are found: the front door to searching, recall and the agents' doors.

    >>> import memory_store, memory_search
    >>> store = memory_store.MemoryStore("~/notes")           # doctest: +SKIP
    >>> hits = memory_search.search(store, "博客RSS配置", sync=True)  # doctest: +SKIP

A search analyses the query, asks the index for candidates and scores them
on two channels, BM25 and a TF-IDF cosine (memsuite/search/ranking.py), then
joins chunks into whole passages and picks their best lines (results.py).  The CLI (`search.sh`, `reindex.sh`), the MCP
server and `watch` live in cli_*.py, mcp.py and watch.py; each is loaded only
when it runs.
"""
import sys

from memsuite import front_door

__all__ = [
    "search", "Hit", "analyse_query", "make_snippet", "highlight", "hit_json", "compact_json",
    "timeline", "context_pack", "pack", "estimate_tokens", "read_cited", "watch", "make_embedder",
    "McpServer", "main",
]

# Where each public name lives (memsuite/<layer>/<module>.py).
_HOMES = {
    "search": "search.ranking",
    "analyse_query": "search.ranking",
    "Hit": "search.results",
    "make_snippet": "search.results",
    "highlight": "search.results",
    "timeline": "search.recall",
    "context_pack": "search.recall",
    "pack": "search.recall",
    "estimate_tokens": "search.results",
    "hit_json": "search.results",
    "compact_json": "search.results",
    "read_cited": "search.results",
    "make_embedder": "search.embeddings",
    "watch": "doors.watch",
    "McpServer": "doors.mcp",
}
# Other names (for tests and tools) are looked up in these modules, in order.
_MODULES = ("search.ranking", "search.synonyms", "search.dates", "search.results", "search.recall",
            "search.embeddings", "doors.watch", "doors.mcp", "doors.cli_search", "doors.cli_recall", "doors.cli_admin")


__getattr__ = front_door(globals(), _HOMES, _MODULES)


def main(argv=None):
    """The command line (search.sh, reindex.sh): exit code 0, 1 (runtime error) or 2 (usage)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["hook"]:  # agents' hooks: through the resident process when there is one
        from memsuite.doors.hook_client import main as hook
        return hook(argv[1:])
    from memsuite.doors.cli_search import main as run
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
