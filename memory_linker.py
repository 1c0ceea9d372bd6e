"""How memories relate: the front door to entities, their graph and `link.sh`.

    >>> import memory_store, memory_linker
    >>> graph = memory_linker.synced_graph(memory_store.MemoryStore("~/notes"))  # doctest: +SKIP
    >>> graph.entity("OpenClaw")                                               # doctest: +SKIP

An entity is a thing notes mention by name (memsuite/links/entities.py finds them,
in English and Chinese); the graph links two entities each time they share a
chunk (graph.py); graph_export.py draws it; cli_link.py is `link.sh`.
"""
import sys

from memsuite import front_door

__all__ = [
    "extract_entities", "entity_key", "Mention", "LinkGraph", "Entity", "Related", "Appearance",
    "synced_graph", "entity_report", "related_report", "graph_json", "graph_dot", "graph_mermaid",
    "related_json", "main",
]

# Where each public name lives (memsuite/<layer>/<module>.py).
_HOMES = {
    "extract_entities": "links.entities",
    "entity_key": "links.entities",
    "Mention": "links.entities",
    "LinkGraph": "links.graph",
    "Entity": "links.graph",
    "Related": "links.graph",
    "Appearance": "links.graph",
    "synced_graph": "links.graph",
    "entity_report": "links.graph",
    "related_report": "links.graph",
    "related_json": "links.graph",
    "graph_json": "links.graph_export",
    "graph_dot": "links.graph_export",
    "graph_mermaid": "links.graph_export",
}
# Other names (for tests and tools) are looked up in these modules, in order.
_MODULES = ("links.entities", "links.graph", "links.graph_export", "doors.cli_link")


__getattr__ = front_door(globals(), _HOMES, _MODULES)


def main(argv=None):
    """The command line (link.sh): exit code 0, 1 (runtime error) or 2 (usage)."""
    from memsuite.doors.cli_link import main as run
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
