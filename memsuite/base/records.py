"""Named records built cheaply, and the errors every layer shares."""
import sys
from operator import itemgetter


# Records: named tuples, built cheaply

def record(name, fields, defaults=()):
    """A named tuple class, as collections.namedtuple makes: built by
    position or keyword, fields as attributes, _fields, _make, _replace,
    _asdict, equality and pickling of a tuple.  namedtuple spends ~0.1 ms
    building each class, and a CLI call's start-up builds two dozen; this
    takes a fifth of that.  defaults fill the rightmost fields."""
    fields = tuple(fields.split() if isinstance(fields, str) else fields)
    index = {f: i for i, f in enumerate(fields)}
    defaults = tuple(defaults)
    size = len(fields)

    def __new__(cls, *args, **kw):
        if kw or len(args) != size:
            args = _record_values(name, fields, index, defaults, args, kw)
        return tuple.__new__(cls, args)

    def _make(cls, values):
        values = tuple(values)
        if len(values) != size:
            raise TypeError("%s expects %d values, got %d" % (name, size, len(values)))
        return tuple.__new__(cls, values)

    def _replace(self, **kw):
        values = list(self)
        for key, value in kw.items():
            if key not in index:
                raise ValueError("%s has no field %r" % (name, key))
            values[index[key]] = value
        return tuple.__new__(type(self), values)

    namespace = {
        "__slots__": (), "__doc__": "%s(%s)" % (name, ", ".join(fields)), "_fields": fields,
        "__module__": sys._getframe(1).f_globals.get("__name__", "__main__"),
        "__new__": __new__, "_make": classmethod(_make), "_replace": _replace,
        "_asdict": lambda self: dict(zip(fields, self)),
        "__getnewargs__": lambda self: tuple(self),
        "__repr__": lambda self: "%s(%s)" % (name, ", ".join("%s=%r" % pair for pair in zip(fields, self))),
    }
    for i, field in enumerate(fields):
        namespace[field] = _field_getter(i, "field %d of %s" % (i, name))
    return type(name, (tuple,), namespace)


try:  # namedtuple's own fast field accessor (CPython 3.8+)
    from _collections import _tuplegetter as _field_getter
except ImportError:  # other Pythons
    def _field_getter(i, doc):
        return property(itemgetter(i), doc=doc)


def _record_values(name, fields, index, defaults, args, kw):
    if len(args) > len(fields):
        raise TypeError("%s takes %d fields, got %d" % (name, len(fields), len(args)))
    missing = object()
    values = list(args) + [missing] * (len(fields) - len(args))
    for key, value in kw.items():
        if key not in index:
            raise TypeError("%s got an unexpected field %r" % (name, key))
        if index[key] < len(args):
            raise TypeError("%s got two values for %r" % (name, key))
        values[index[key]] = value
    first_default = len(fields) - len(defaults)
    for i, value in enumerate(values):
        if value is missing:
            if i < first_default:
                raise TypeError("%s is missing field %r" % (name, fields[i]))
            values[i] = defaults[i - first_default]
    return tuple(values)


# Errors

class StoreError(Exception):
    """A problem a user can act on; the message is one line, no traceback."""


class UsageError(Exception):
    """Bad arguments or input from the caller (exit code 2 on the command line)."""


class IndexDamaged(Exception):
    """The index file is unreadable or not ours.  Raised only where damage is
    checked (opening the index, or SQLite reporting a corrupt file); the store
    then moves the index aside and rebuilds it.  Any other exception is a bug
    and is raised as it is, with the index left alone."""
