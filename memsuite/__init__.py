"""The code behind memory_store.py, memory_search.py and memory_linker.py, one concern a file,
in one folder per layer (docs/architecture.md has the map)."""


def front_door(namespace, homes, modules):
    """The __getattr__ of a front door (PEP 562): a name is loaded from its
    module on first use (homes: {name: module}; other names are looked up in
    modules, in order) and kept in the door's namespace."""
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        from importlib import import_module  # here, not above: a command line (main) never needs it
        for module in [homes[name]] if name in homes else modules:
            value = getattr(import_module("memsuite." + module), name, namespace)
            if value is not namespace:
                namespace[name] = value
                return value
        raise AttributeError("module %r has no attribute %r" % (namespace["__name__"], name))
    return __getattr__
