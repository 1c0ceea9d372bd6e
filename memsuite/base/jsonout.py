"""JSON written by hand: the json module costs milliseconds of every start-up."""
import sys


def print_json(obj):
    sys.stdout.write(to_json(obj) + "\n")


_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                 "\b": "\\b", "\f": "\\f"}
_JSON_ESCAPES.update({chr(i): "\\u%04x" % i for i in range(32) if chr(i) not in _JSON_ESCAPES})
_JSON_ESCAPES.update({"\u2028": "\\u2028", "\u2029": "\\u2029"})


def to_json(obj):
    """JSON text of plain data (what json.dumps(obj, ensure_ascii=False) gives)."""
    if isinstance(obj, str):
        return '"' + "".join(_JSON_ESCAPES.get(c, c) for c in obj) + '"' \
            if any(c in _JSON_ESCAPES for c in obj) else '"' + obj + '"'
    if obj is None:
        return "null"
    if obj is True or obj is False:
        return "true" if obj else "false"
    if isinstance(obj, (int, float)):
        if isinstance(obj, float) and (obj != obj or obj in (float("inf"), float("-inf"))):
            return "null"
        return repr(obj)
    if isinstance(obj, dict):
        return "{" + ", ".join(to_json(str(k)) + ": " + to_json(v) for k, v in obj.items()) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ", ".join(to_json(v) for v in obj) + "]"
    return to_json(str(obj))
