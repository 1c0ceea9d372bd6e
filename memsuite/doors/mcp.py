"""The MCP server: JSON-RPC over stdio, standard library only.

Each tool calls the command function the CLI calls (commands.py), so a tool's
structuredContent is what `--json` prints.  No message a client sends stops
the server: a bad one gets a JSON-RPC error or an isError result."""
import sys

from ..base.options import no_words
from ..app.commands import (RULES, add_result, embedding_store, checked, context_result, empty_note, search_request, search_result,
                             status_result, timeline_result)
from ..base.jsonout import to_json
from ..search.context import turns_from_lines
from ..search.ranking import ANSWER_CUT, MODES
from ..base.records import StoreError, UsageError
from ..search.results import read_cited
from ..text.tokenizer import MAX_QUERY_CHARS


# MCP server: the same library calls for any MCP client, over stdio
# (JSON-RPC 2.0, one message per line; only protocol on stdout, logs on
# stderr).  Each call refreshes the index as the CLI does, so a note another
# process wrote a moment ago is found.

MCP_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # newest first
SERVER_VERSION = "1.0.0"
_STRING = {"type": "string"}
_QUERY = dict(_STRING, maxLength=MAX_QUERY_CHARS,  # longer is refused, as by the CLI
              description="what to find, in the user's words (Chinese, English or both)")
_LIMIT = {"type": "integer", "minimum": 1, "maximum": 50, "description": "how many results at most"}
_CITATION = "a hit's id or citation (memory/2026-02-20.md:1-7), a chunk id (file.md#2) or a file"


def _tool(name, title, description, properties, required=(), read_only=True, idempotent=True):
    return {"name": name, "title": title, "description": description,
            "inputSchema": {"type": "object", "properties": properties, "required": list(required),
                            "additionalProperties": False},
            "annotations": {"title": title, "readOnlyHint": read_only, "destructiveHint": False,
                            "idempotentHint": idempotent, "openWorldHint": False}}


MCP_TOOLS = [
    _tool("memory_search", "Search memory",
          "Search the user's Markdown memory (daily logs, MEMORY.md) in Chinese or English. Use before "
          "answering about past work, decisions, people, preferences or dates. Returns hits with "
          "citations (path:first-last); scores of %g and more answer most of the query." % ANSWER_CUT,
          {"query": _QUERY, "limit": _LIMIT, "since": dict(_STRING, description="YYYY-MM-DD"),
           "until": dict(_STRING, description="YYYY-MM-DD"), "path": dict(_STRING, description="glob or folder"),
           "today": dict(_STRING, description="YYYY-MM-DD: the day relative dates in the query (yesterday, "
                                              "上周三, last week) are read against; default MEMORY_TODAY or the clock's"),
           "min_score": {"type": "number", "minimum": 0, "maximum": 1,
                         "description": "leave out hits scoring under this (0.4 drops partial matches)"},
           "mode": {"type": "string", "enum": list(MODES), "description": "hybrid (default), keyword (BM25) or "
                                                                         "vector (TF-IDF)"},
           "compact": {"type": "boolean", "description": "one short line per hit"},
           "sort": {"type": "string", "enum": ["score", "date"], "description": "score (default) or date, newest "
                                                                               "first"},
           "recent": dict({"type": "boolean"}, description="prefer newer notes (half-life 30 days; off by default): "
                                                           "use when a fact may have changed"),
           "half_life": dict({"type": "number", "exclusiveMinimum": 0, "maximum": 36500},
                             description="recent, with this half-life in days"),
           "explain": dict({"type": "boolean"}, description="say what each hit matched and scored, "
                                                            "and why weaker hits were cut"),
           "context": dict(_STRING, description="the conversation before the query, one turn a line "
                                                "('user: ...' / 'assistant: ...'): its words count "
                                                "beside the query's, below them")}, ["query"]),
    _tool("memory_get", "Read memory lines",
          "Read the lines a citation names (memory/2026-02-20.md:1-7), or part of a memory file.",
          {"path": dict(_STRING, description=_CITATION),
           "from": {"type": "integer", "minimum": 1, "description": "the first line to read (with a file)"},
           "lines": {"type": "integer", "minimum": 1, "description": "how many lines to read"}}, ["path"]),
    _tool("memory_add", "Add a memory",
          "Append a note to today's daily log (or to a named memory file); returns its citation "
          "and the heading it landed under.",
          {"text": dict(_STRING, description="the note, one line or Markdown lines"),
           "heading": dict(_STRING, description="the '## heading' section to put it under (made when missing); "
                                                "default: the end of the file, or, when it ends inside a named "
                                                "section, a new '## HH:MM' in a day's log and '## Notes' in "
                                                "another file"),
           "tags": {"type": "array", "items": _STRING, "description": "#tags to add, one word each"},
           "file": dict(_STRING, description="a memory file inside the folder, e.g. MEMORY.md"),
           "request": dict(_STRING, description="a key for this note: a retry with the same key "
                                                "writes nothing and returns the first answer")},
          ["text"], read_only=False, idempotent=False),
    _tool("memory_related", "Related memories",
          "Memories that share people, projects or terms with a citation, chunk or file.",
          {"target": dict(_STRING, description=_CITATION), "limit": _LIMIT}, ["target"]),
    _tool("memory_entity", "Entity",
          "Where an entity (a person, project, term, #tag, URL...) appears, newest first, and what it "
          "appears with.", {"name": dict(_STRING, description="the entity as written: OpenClaw, 王芳, #travel"),
                           "limit": _LIMIT}, ["name"]),
    _tool("memory_timeline", "Timeline",
          "What happened around a memory (a citation) or a date (YYYY-MM-DD), oldest first.",
          {"anchor": dict(_STRING, description="a hit's id or citation (memory/2026-02-20.md:1-7), a chunk id "
                                               "(file.md#2) or a date (YYYY-MM-DD)"),
           "before": {"type": "integer", "minimum": 0, "maximum": 50, "description": "memories before it"},
           "after": {"type": "integer", "minimum": 0, "maximum": 50, "description": "memories after it"}},
          ["anchor"]),
    _tool("memory_context", "Context pack",
          "The best passages for a query as one Markdown block within a token budget.",
          {"query": _QUERY, "budget": {"type": "integer", "minimum": 50, "maximum": 32000,
                                       "description": "tokens at most (default 1500)"}}, ["query"]),
    _tool("memory_status", "Memory status", "The index's state: folder, files, chunks, what is stale.", {}),
]


class ToolError(Exception):
    """A tool call that cannot be done as asked: an isError result, one line."""


class McpServer:
    """Answers MCP messages for one memory folder."""

    def __init__(self, store, log=None):
        self.store = store
        self.log = log or (lambda message: None)
        self.tools = {t["name"]: t for t in MCP_TOOLS}

    def handle(self, message):
        """The response to one decoded message (None for a notification);
        never an exception, whatever the message holds."""
        try:
            return self._handle(message)
        except Exception as exc:  # a bug must not take the server down
            self.log("error: %s: %s" % (type(exc).__name__, exc))
            ident = message.get("id") if isinstance(message, dict) and _valid_id(message.get("id")) else None
            return _rpc_error(ident, -32603, "Internal error: %s" % type(exc).__name__)

    def _handle(self, message):
        if isinstance(message, dict) and not _valid_id(message.get("id")):
            return _rpc_error(None, -32600, "Invalid Request: id must be a string, a number or null")
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or \
                not isinstance(message.get("method", ""), str) or "method" not in message and "id" not in message:
            return _rpc_error(message.get("id") if isinstance(message, dict) else None, -32600, "Invalid Request")
        method, ident = message.get("method"), message.get("id")
        if method is None:  # a response to us: we never ask anything
            return None
        if "id" not in message:  # a notification (notifications/initialized, cancelled...)
            return None
        params = message.get("params", {})
        if not isinstance(params, dict):
            return _rpc_error(ident, -32602, "params must be an object")
        handler = {"initialize": self._initialize, "ping": lambda p: {}, "tools/list": self._list,
                   "tools/call": self._call}.get(method)
        if handler is None:
            return _rpc_error(ident, -32601, "Method not found: %s" % method)
        try:
            return {"jsonrpc": "2.0", "id": ident, "result": handler(params)}
        except _InvalidParams as exc:
            return _rpc_error(ident, -32602, str(exc))

    def _initialize(self, params):
        asked = params.get("protocolVersion")
        version = asked if asked in MCP_VERSIONS else MCP_VERSIONS[0]
        client = params.get("clientInfo")
        client = client if isinstance(client, dict) else {}
        self.log("client %.80s %.40s, protocol %s" % (client.get("name", "?"), client.get("version", ""), version))
        instructions = ("Search the user's Markdown memory before answering about past work, people, "
                        "preferences or dates; cite path:first-last; save what should be remembered "
                        "with memory_add.")
        try:
            self.store.refresh()
            note = empty_note(self.store)
        except StoreError as exc:
            note = str(exc)
        if note:  # an empty folder must not read as "no memories"
            instructions += " NOTE: " + note + "."
        return {"protocolVersion": version, "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "memory-search", "title": "Markdown memory", "version": SERVER_VERSION},
                "instructions": instructions}

    def _list(self, params):
        return {"tools": MCP_TOOLS}

    def _call(self, params):
        name, arguments = params.get("name"), params.get("arguments", {})
        arguments = {} if arguments is None else arguments
        if not isinstance(name, str) or name not in self.tools:
            raise _InvalidParams("Unknown tool: %.100r" % (name,))
        if not isinstance(arguments, dict):
            raise _InvalidParams("arguments must be an object")
        try:
            _check_arguments(self.tools[name]["inputSchema"], arguments)
            data = getattr(self, "_" + name)(arguments)
        except (ToolError, UsageError, StoreError) as exc:
            return _tool_error(str(exc))
        except Exception as exc:  # a bug must not take the server down
            self.log("error in %s: %s: %s" % (name, type(exc).__name__, exc))
            return _tool_error("unexpected %s: %s" % (type(exc).__name__, exc))
        return {"content": [{"type": "text", "text": to_json(data)}], "structuredContent": data,
                "isError": False}

    # --- the tools: each returns what the CLI prints with --json -------------
    def _memory_search(self, a):
        return search_result(self.store, search_request(
            a["query"], a.get("limit"), a.get("mode"), a.get("min_score"), a.get("since"), a.get("until"),
            a.get("path"), False, None, a.get("sort"), a.get("recent"), a.get("half_life"), a.get("compact"),
            a.get("explain"), a.get("today"), turns_from_lines(a["context"]) if a.get("context") else None))

    def _memory_get(self, a):
        self.store.refresh()
        return read_cited(self.store.root, a["path"], a.get("from"), a.get("lines"), self.store)

    def _memory_add(self, a):
        return add_result(self.store, a["text"], a.get("heading"), a.get("tags") or (), a.get("file"),
                          a.get("request"))

    def _graph(self):
        from ..links import graph as linker  # loaded only when a client asks for links
        self.store.refresh()
        return linker, linker.synced_graph(self.store)

    def _memory_related(self, a):
        linker, graph = self._graph()
        return linker.related_report(graph, a["target"], checked("limit", a.get("limit", 5)))[1]

    def _memory_entity(self, a):
        linker, graph = self._graph()
        return linker.entity_report(graph, a["name"], checked("limit", a.get("limit", 20)))[1]

    def _memory_timeline(self, a):
        return timeline_result(self.store, a["anchor"], a.get("before"), a.get("after"))

    def _memory_context(self, a):
        return context_result(self.store, a["query"], a.get("budget"))[1]

    def _memory_status(self, a):
        from .resident import with_resident
        return with_resident(status_result(self.store))


def _valid_id(ident):
    return ident is None or isinstance(ident, str) or (isinstance(ident, (int, float)) and not isinstance(ident, bool))


class _InvalidParams(Exception):
    pass


def _rpc_error(ident, code, message):
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def _tool_error(message):
    return {"content": [{"type": "text", "text": " ".join(message.split())}], "isError": True}


_JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list}


def _check_arguments(schema, arguments):
    """The subset of JSON Schema the tools use: required, types, enums, bounds
    (the values the command layer has a rule for are left to it)."""
    properties = schema["properties"]
    for key in arguments:  # (first: an argument under another name is named, not only the one missing)
        if key not in properties:
            raise ToolError("unknown argument: %s (known: %s)" % (key, ", ".join(sorted(properties)) or "none"))
    for key in schema["required"]:
        if key not in arguments:
            raise ToolError("missing argument: %s" % key)
    for key, value in arguments.items():
        spec = properties[key]
        kind = _JSON_TYPES[spec["type"]]
        if not isinstance(value, kind) or (spec["type"] in ("integer", "number") and isinstance(value, bool)) \
                or (spec["type"] == "number" and value != value):
            raise ToolError("%s must be of type %s" % (key, spec["type"]))
        if key in RULES:  # the command layer's rule, in the CLI's words, then this door's cap
            checked(key, value)
            if "maximum" in spec and value > spec["maximum"]:  # agents' context is small
                raise ToolError("%s: must be at most %s: %r" % (key, spec["maximum"], value))
            continue
        if "enum" in spec and value not in spec["enum"]:
            raise ToolError("%s must be one of: %s" % (key, ", ".join(spec["enum"])))
        if "minimum" in spec and value < spec["minimum"] or "maximum" in spec and value > spec["maximum"]:
            raise ToolError("%s must be between %s and %s" % (key, spec.get("minimum"), spec.get("maximum")))
        if spec["type"] == "array" and not all(isinstance(v, str) for v in value):
            raise ToolError("%s must be a list of strings" % key)
        if spec["type"] == "string" and not value.strip() and key in schema["required"]:
            raise ToolError("%s is empty" % key)


def serve_mcp(store, stdin, stdout, log=None):
    """Answer MCP messages, one JSON object per line, until stdin ends."""
    import json
    server = McpServer(store, log)
    for raw in stdin:
        if not raw.strip():
            continue
        try:
            message = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            response = _rpc_error(None, -32700, "Parse error: %s" % str(exc)[:200])
        else:
            if isinstance(message, list):
                response = _rpc_error(None, -32600, "Invalid Request: batches are not supported")
            else:
                response = server.handle(message)
        if response is not None:
            stdout.write(to_json(response).encode("utf-8", "replace") + b"\n")
            stdout.flush()


def cmd_mcp(args):
    no_words(args)

    def log(message):
        sys.stderr.write("memory-search mcp: %s\n" % message)
        sys.stderr.flush()
    with embedding_store(args) as store:
        log("serving %s on stdio" % store.root)
        serve_mcp(store, sys.stdin.buffer, sys.stdout.buffer, log)
    return 0
