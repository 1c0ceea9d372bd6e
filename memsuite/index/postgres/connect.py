"""The PostgreSQL backend's connection: which server (MEMORY_PG_DSN or PG*),
which driver (psycopg 3, else pg8000, imported only when asked for), which
namespace, and error messages scrubbed of credentials."""
import os
import re
import socket

from ...base.records import StoreError, UsageError

NAMESPACE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")


def default_namespace(root):
    """A name for a memory folder: its folder name and a short hash of this
    host and its path (two machines, or two folders of one name, differ)."""
    import hashlib
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", os.path.basename(os.path.normpath(root))).strip("-._") or "memory"
    digest = hashlib.sha1(("%s:%s" % (socket.gethostname(), root)).encode("utf-8", "surrogatepass")).hexdigest()
    return "%s-%s" % (base[:40], digest[:8])


def check_namespace(name):
    if not NAMESPACE_RE.match(name or "") or name == "all":
        raise UsageError("bad namespace %r (letters, digits, '.', '_' or '-', at most 63; "
                            "'all' is reserved)" % name)
    return name


def parse_namespaces(value, root):
    """(own namespace, namespaces read: a list, or None for all) from
    --namespace / MEMORY_NAMESPACE: one name is this folder's namespace;
    several ('a,b') or 'all' are what a search reads, and the folder keeps
    its own (MEMORY_NAMESPACE, else the default)."""
    env = os.environ.get("MEMORY_NAMESPACE", "").strip()
    own = check_namespace(env) if env else default_namespace(root)
    if not value:
        return own, [own]
    value = value.strip()
    if value == "all":
        return own, None
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise UsageError("empty --namespace")
    for n in names:
        check_namespace(n)
    if len(names) == 1:
        return names[0], names
    return own, list(dict.fromkeys(names))


def dsn_settings():
    """(conninfo string for psycopg, keyword arguments for pg8000, password)
    from MEMORY_PG_DSN (a URI or 'key=value ...') and the PG* variables."""
    dsn = os.environ.get("MEMORY_PG_DSN", "").strip()
    kw = {}
    if dsn.startswith(("postgres://", "postgresql://")):
        from urllib.parse import urlsplit, unquote, parse_qsl
        parts = urlsplit(dsn)
        if parts.username:
            kw["user"] = unquote(parts.username)
        if parts.password:
            kw["password"] = unquote(parts.password)
        host = parts.netloc.rsplit("@", 1)[-1]
        if host:
            name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
            if not name:
                name, port = port, ""
            if name:
                kw["host"] = unquote(name.strip("[]"))
            if port:
                kw["port"] = port
        if parts.path.strip("/"):
            kw["dbname"] = unquote(parts.path.strip("/"))
        for k, v in parse_qsl(parts.query):
            kw[k] = v
    elif dsn:
        for m in re.finditer(r"(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", dsn):
            value = m.group(2)
            if value.startswith("'"):
                value = re.sub(r"\\(.)", r"\1", value[1:-1])
            kw[m.group(1)] = value
    for key, env in (("host", "PGHOST"), ("port", "PGPORT"), ("user", "PGUSER"),
                     ("password", "PGPASSWORD"), ("dbname", "PGDATABASE")):
        if key not in kw and os.environ.get(env):
            kw[key] = os.environ[env]
    return dsn, kw, kw.get("password")


def pg8000_args(kw):
    import getpass
    user = kw.get("user") or getpass.getuser()
    host = kw.get("host") or ("/var/run/postgresql" if os.path.isdir("/var/run/postgresql") else "localhost")
    port = int(kw.get("port") or 5432)
    args = {"user": user, "database": kw.get("dbname") or user, "password": kw.get("password")}
    if host.startswith("/"):
        args["unix_sock"] = os.path.join(host, ".s.PGSQL.%d" % port)
    else:
        args.update(host=host, port=port)
    if kw.get("connect_timeout"):
        args["timeout"] = float(kw["connect_timeout"])
    return args


def describe_server(kw):
    """Where the server is, without credentials: 'host:port/db as user'."""
    host = kw.get("host") or "(default socket)"
    port = kw.get("port") or "5432"
    return "%s:%s/%s as %s" % (host, port, kw.get("dbname") or kw.get("user") or "(default)",
                               kw.get("user") or "(default user)")


class Driver:
    """The DB-API module in use and how to connect with it."""

    def __init__(self, name, module, errors):
        self.name, self.module, self.errors = name, module, errors


def load_driver():
    """The driver to use (psycopg 3, else pg8000), or StoreError saying why none can.
    The wrappers start Python with -S (no site-packages, for a fast start):
    when no driver imports so, site-packages are added and tried again."""
    try:
        return _load_driver()
    except StoreError:
        import sys
        if not sys.flags.no_site:
            raise
        import site
        site.main()
        return _load_driver()


def _load_driver():
    why = []
    if os.environ.get("MEMORY_PG_DRIVER", "") in ("", "psycopg"):
        try:
            import psycopg
            return Driver("psycopg %s" % psycopg.__version__, psycopg, (psycopg.Error,))
        except ImportError as exc:
            why.append("psycopg: %s" % exc)
    if os.environ.get("MEMORY_PG_DRIVER", "") in ("", "pg8000"):
        try:
            import pg8000.dbapi
            import pg8000
            version = getattr(pg8000, "__version__", "")
            return Driver(("pg8000 %s" % version).strip(), pg8000.dbapi, (pg8000.dbapi.Error,))
        except ImportError as exc:
            why.append("pg8000: %s" % exc)
    raise StoreError("PostgreSQL backend unavailable: no driver (%s); install one "
                        "(pip install 'psycopg[binary]' or pg8000) or use MEMORY_BACKEND=sqlite"
                        % "; ".join(why or ["MEMORY_PG_DRIVER=%s is not psycopg or pg8000"
                                            % os.environ.get("MEMORY_PG_DRIVER")]))


def encodable(text):
    try:
        text.encode("utf-8")
    except UnicodeError:
        return False
    return "\0" not in text


def copy_value(v):
    """A value in COPY's text format."""
    if v is None:
        return "\\N"
    if isinstance(v, str):
        if "\\" in v or "\t" in v or "\n" in v or "\r" in v:
            v = v.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
        return v
    return repr(v) if isinstance(v, float) else str(v)


def scrub(message, secrets):
    """A driver's message as one line, without any secret in it."""
    text = " ".join(str(message).split())
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    text = re.sub(r"(password\s*=\s*)\S+", r"\1***", text, flags=re.I)
    return re.sub(r"(postgres(?:ql)?://[^:/@\s]*:)[^@\s]*@", r"\1***@", text)


# --------------------------------------------------------------------------
# The backend
# --------------------------------------------------------------------------
