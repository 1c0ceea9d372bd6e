"""MemoryStore: a memory folder and its index.  Opens the backend, syncs it with
the folder, recovers from damage, and reads; keeping answers fresh
(freshness.py), filling embeddings (embedding_fill.py) and backups
(backups.py) have their own modules.  Ranking is not here (search/ranking.py)."""
import os
import sys

from ..index.records import SyncReport, plan_sync, stat_digest
from ..text.params import DEFAULT_PARAMS
from ..base.records import IndexDamaged, StoreError, UsageError
from ..files.sources import (INDEX_DIRNAME, discover, discover_sessions, files_rule, is_session, locate_index_dir,
                             read_memory_lines, resolve_memory_dir, stat_sources, writable_dir)
from ..index.sqlite.index import NoFts5, SqliteBackend, sqlite_unavailable_reason
from .freshness import Heartbeat, answer_fresh, refresh


# MemoryStore: the one entry point for the other modules.

def write_failure(exc, index_dir):
    """A StoreError for failures a user can act on (busy, full, read-only), else None."""
    msg = str(exc).lower()
    if "locked" in msg or "busy" in msg:
        return StoreError("the index is busy: another process is updating it (try again)")
    if any(w in msg for w in ("full", "readonly", "read-only", "unable to open", "disk i/o")):
        hint = " (is the disk full?)" if "i/o" in msg or "full" in msg else ""
        return StoreError("cannot write the index in %s: %s%s; the old index is unchanged"
                          % (index_dir, exc, hint))
    return None


def _sessions_dir(arg):
    """The sessions folder: the argument, else $MEMORY_SESSIONS_DIR, else None (off)."""
    raw = arg or os.environ.get("MEMORY_SESSIONS_DIR")
    if not raw:
        return None
    path = os.path.realpath(os.path.expanduser(raw))
    if not os.path.isdir(path):
        raise StoreError("sessions folder not found: %s" % raw)
    return path


def _restricted(known, only):
    """known files, or only those among them named in only."""
    if only is None:
        return known
    wanted = set(only)
    return {p: v for p, v in known.items() if p in wanted}


class _Recovering:
    """A backend part (the link tables) whose calls recover from a damaged index."""

    def __init__(self, store, part):
        self._store, self._part = store, part

    def __getattr__(self, name):
        # looked up at each call: recovery may have replaced the backend's connection
        return lambda *args: self._store._recovering(
            lambda: getattr(getattr(self._store.backend, self._part), name)(*args))


def _identity(path):
    """(device, inode) of a file, or None: which file, not which name."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


class MemoryStore:
    """A memory folder and its index.

    >>> store = MemoryStore("~/notes")      # doctest: +SKIP
    >>> store.refresh()                     # cheap when nothing changed
    """

    def __init__(self, root=None, backend=None, index_dir=None, warn=None, params=None, sessions=None,
                 namespace=None, embedder=None):
        self.root = resolve_memory_dir(root)
        self.sessions_dir = _sessions_dir(sessions)
        self.params = params or DEFAULT_PARAMS
        self.warn = warn or (lambda msg: sys.stderr.write("memory: %s\n" % msg))
        if index_dir and not writable_dir(index_dir):
            raise StoreError("index folder is not writable: %s" % index_dir)
        self.index_dir = index_dir or locate_index_dir(self.root)
        requested = (backend or os.environ.get("MEMORY_BACKEND") or "auto").lower()
        if requested not in ("auto", "sqlite", "json", "postgres"):
            raise StoreError("unknown backend %r (use auto, sqlite, json or postgres)" % requested)
        self.fallback_reason = None
        self.last_report = None
        self.heartbeat = Heartbeat(self.index_dir, self.root)
        self.embedder = None  # an embedding provider (see use_embedder), or None: off
        self.embed_report = {"requested": "off", "provider": None, "model": None, "dim": None, "skipped": {}}
        self.embed_error = None  # why the last use of the embedder failed, or None
        self.embed_batch = None  # the batch size that fitted the provider's timeout, once known
        self.use_embedder(embedder)
        if requested == "postgres":  # a shared server (postgres.py); its driver is imported only now
            from ..index.postgres.backend import PostgresBackend
            self.backend = PostgresBackend(self.root, namespace, self.params, self.warn)
            self._open_backend()
            return
        if namespace:
            raise UsageError("--namespace needs the postgres backend (MEMORY_BACKEND=postgres)")
        if requested != "json":
            reason = self._open_sqlite()
            if reason is None:
                return
            if requested == "sqlite":
                raise StoreError("SQLite backend unavailable: " + reason)
            self.fallback_reason = reason
        from ..index.json.index import JsonBackend
        self.backend = JsonBackend(self.index_dir, self.params, self.warn, self._folder_key())
        self._open_backend()

    def _folder_key(self):
        """The folder an index kept elsewhere than <folder>/.memory belongs to
        (part of its settings: a shared MEMORY_INDEX_DIR never answers for
        another folder); None for the usual place, so a copied folder keeps its index."""
        inside = self.index_dir and os.path.dirname(os.path.abspath(self.index_dir)) == os.path.abspath(self.root) \
            and os.path.basename(self.index_dir) == INDEX_DIRNAME
        return None if inside or not self.index_dir else os.path.realpath(self.root)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _open_sqlite(self):
        """Open the SQLite index; None, or why SQLite with FTS5 cannot be used here.
        (No separate FTS5 probe: opening the index shows whether FTS5 works.)"""
        try:
            self.backend = SqliteBackend(self.index_dir, self.params, self.warn, self._folder_key())
        except ImportError:
            return "the sqlite3 module is not available"
        existed = [p for p in self.backend.files_on_disk() if os.path.exists(p)]
        try:
            self._open_backend()
        except (NoFts5, self.backend.sqlite3.OperationalError) as exc:
            if not isinstance(exc, NoFts5) and "fts5" not in str(exc).lower():
                raise
            self.backend.close()
            for path in self.backend.files_on_disk():  # leave no SQLite file behind
                if path not in existed and os.path.exists(path):
                    os.unlink(path)
            return "this SQLite (%s) has no FTS5" % self.backend.sqlite3.sqlite_version
        return None

    def _open_backend(self):
        self._opened_identity = None
        try:
            self.backend.open()
        except IndexDamaged as exc:
            self._quarantine(exc)
            self.backend.open()
        files = self.backend.files_on_disk()
        self._opened_identity = _identity(files[0]) if files else None

    # --- what is indexed ------------------------------------------------------
    def discover(self, folders=None):
        """(files, problems): the memory files, and the transcripts of the
        sessions folder when one is set (see discover, discover_sessions)."""
        files, problems = discover(self.root, self.index_dir, folders)
        if self.sessions_dir:
            files += discover_sessions(self.sessions_dir)
        return files, problems

    def stat(self, paths):
        """SourceFiles of these relative paths, those that exist."""
        return self._stat(paths)

    def _stat(self, paths):
        memory = [p for p in paths if not is_session(p)]
        found = stat_sources(self.root, memory)
        if self.sessions_dir:
            found += [f for f in discover_sessions(self.sessions_dir) if f.path in set(paths)]
        return found

    def read_lines(self, rel):
        """All lines of a memory file or cited transcript (private blocks masked)."""
        return read_memory_lines(self.root, rel, self.sessions_dir)

    # --- recovery ----------------------------------------------------------
    def _recovering(self, fn, *args, **kwargs):
        """Run fn; if the index turns out to be damaged (and only then), move it
        aside, index the folder again, and run fn once more.  resync=False for
        fn that sync themselves."""
        resync = kwargs.pop("resync", True)
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if not isinstance(exc, IndexDamaged) and not self.backend.is_corruption(exc):
                raise
            damage = exc
        self._quarantine(damage)
        self._open_backend()
        if resync:
            self._sync()
        return fn(*args, **kwargs)

    def _quarantine(self, exc):
        """Put the damaged index aside (Backend.discard): the very index this
        process opened (another process may have rebuilt a healthy one at the
        same path meanwhile)."""
        files = self.backend.files_on_disk()
        if self._opened_identity and files and _identity(files[0]) not in (None, self._opened_identity):
            self.backend.close()
            self.warn("the index was rebuilt by another process meanwhile; reading the new one")
            return
        done = self.backend.discard()
        self.warn("index was damaged (%s); %s and rebuilt it from the Markdown"
                  % (str(exc).splitlines()[0] if str(exc) else type(exc).__name__, done))

    def use_embedder(self, embedder, report=None):
        """Search and refresh with an embedding provider (make_embedder's), or
        None: off; report is what make_embedder said about choosing it."""
        self.embedder = embedder
        if report is not None:
            self.embed_report = report

    # --- keeping the index fresh -------------------------------------------
    def refresh(self):
        """The freshness policy every door uses (see freshness.refresh): sync,
        or warn and answer from the last good index.  Returns a Freshness."""
        return refresh(self)

    def answer_fresh(self, answer):
        """(answer(), Freshness): answer() on an up-to-date index (see freshness.answer_fresh)."""
        return answer_fresh(self, answer)

    def fill_vectors(self, progress=None, limit=None):
        """Embed the indexed texts the provider has no vector for yet (see
        embedding_fill.py); how many were embedded."""
        from .embedding_fill import fill_vectors
        return fill_vectors(self, progress, limit)

    def sync(self, only=None, scan=None):
        """Bring the index up to date with the folder; cheap when nothing changed.
        With only (relative paths), look at those files alone; with scan (what
        discover returned), at what it found.  Raises StoreError when the
        index cannot be written."""
        return self._recovering(self._sync, only=only, scan=scan, resync=False)

    def rebuild(self):
        """Back up the index (keeping the last few), then rebuild it from scratch."""
        from .backups import back_up
        backup = back_up(self)
        report = self._recovering(self._sync, rebuild=True, resync=False)
        return report, backup

    def _sync(self, rebuild=False, scan=None, only=None):
        if only is not None:
            found, problems = self._stat(only), []
        else:
            found, problems = scan or self.discover()
        if not rebuild:
            if only is None and self._digest_matches(found):
                self.last_report = SyncReport([], [], [], sorted(f.path for f in found), sorted(problems))
                return self.last_report
            changed, removed, unchanged = plan_sync(_restricted(self.backend.known_files(), only), found)
            if not changed and not removed:
                self.last_report = SyncReport([], [], [], sorted(unchanged), sorted(problems))
                return self.last_report
        try:
            report = self._write_changes(found, list(problems), rebuild, only)
        except OSError as exc:
            raise StoreError("cannot write the index in %s: %s" % (self.index_dir, exc.strerror or exc))
        except (IndexDamaged, StoreError):
            raise
        except Exception as exc:
            if self.backend.is_corruption(exc):
                raise
            raise write_failure(exc, self.index_dir) or exc
        self.last_report = report
        return report

    def reflects(self, found):
        """True if the index holds exactly these files as they are (the stat
        digest of the last sync; else a comparison of every file)."""
        if self._digest_matches(found):
            return True
        changed, removed, _ = plan_sync(self.backend.known_files(), found)
        return not changed and not removed

    def _digest_matches(self, found):
        return stat_digest(found) == self.backend.meta("stat_digest")

    def _write_changes(self, found, problems, rebuild, only=None):
        """Apply what changed, one file at a time, in one transaction."""
        added, updated, touched = [], [], []
        with self.backend.writer(rebuild) as w:
            known = {} if rebuild else _restricted(w.known_files(), only)  # again, now that we hold the lock
            changed, removed, unchanged = plan_sync(known, found)
            for path in removed:
                w.remove(path)
            tasks = [(f, known[f.path].hash if f.path in known else None) for f in changed]
            from ..index.prepare import prepare_files  # the chunker and the tokenizer's index side
            for f, analysed in prepare_files(tasks, self.params):
                if f is None:
                    w.count_features(analysed)
                    continue
                if analysed.issue:
                    problems.append((f.path, analysed.issue))
                if analysed.chunks is None:
                    w.touch(f)  # same content, new mtime
                    touched.append(f.path)
                    continue
                w.put(f, analysed)
                (updated if f.path in known else added).append(f.path)
            # what the index now reflects, for the next sync's quick check (a partial sync knows less,
            # and a file that could not be read must be tried again)
            unread = any(issue == "unreadable" for _, issue in problems)
            self.backend.set_meta("stat_digest", stat_digest(found) if only is None and not unread else "")
        return SyncReport(sorted(added), sorted(updated), sorted(removed),
                          sorted(unchanged + touched), sorted(problems))

    def stale_files(self):
        """What a sync would change, without writing: (changed, removed, skipped)
        paths, skipped being (path, issue) pairs discovery passed over."""
        found, skipped = self.discover()
        changed, removed, _ = plan_sync(self.known_files(), found)
        return [f.path for f in changed], removed, skipped

    # --- reads -------------------------------------------------------------
    @property
    def backend_name(self):
        return self.backend.name

    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        """[(key, BM25)] best first: chunks holding any of the terms (all, with
        require_all), or words starting with one of the prefixes."""
        return self._recovering(self.backend.keyword, terms, limit, filters, require_all, prefixes)

    def fetch(self, keys):
        """{key: StoredChunk}."""
        return self._recovering(self.backend.fetch, keys)

    def snapshot(self):
        """A context manager: the reads inside it (a whole search) see one
        committed index, even while another process syncs or rebuilds."""
        return self.backend.snapshot()

    def chunks_of(self, path):
        """[StoredChunk] of one file, in order."""
        return self._recovering(self.backend.chunks_of, path)

    def doc_freqs(self, terms):
        """{feature: number of chunks holding it}, for the features the index holds."""
        return self._recovering(self.backend.doc_freqs, terms)

    def known_files(self):
        """{path: FileState} of every indexed file."""
        return self._recovering(self.backend.known_files)

    def file_dates(self):
        """{path: YYYY-MM-DD or None} of every indexed file."""
        return self._recovering(self.backend.file_dates)

    def chunk_count(self):
        return self._recovering(self.backend.chunk_count)

    def total_terms(self):
        return self._recovering(self.backend.total_terms)

    def links(self, version):
        """The link tables for an extractor version (emptied when it changes)."""
        self._recovering(self.backend.links.ensure, version)
        return _Recovering(self, "links")

    @property
    def embeddings(self):
        """The stored vectors of embedding providers (see SqliteEmbeddings)."""
        return _Recovering(self, "embeddings")

    def status(self):
        """The index's state: backend, size, files, problems, what is stale."""
        stats = self._recovering(self.backend.stats)
        changed, removed, skipped = self.stale_files()
        issues = sorted(set(self.backend.file_issues()) | set(skipped))
        on_disk = self.backend.files_on_disk()
        return dict(stats, **{
            "memory_dir": self.root,
            "backend": self.backend.name,
            "fts5": sqlite_unavailable_reason() is None,
            "fallback_reason": self.fallback_reason,
            "index_path": stats.get("index_path") or (on_disk[0] if on_disk else ":memory:"),
            "stale_files": sorted(changed + removed),
            "problem_files": [{"path": p, "issue": i} for p, i in issues],
            "files_rule": files_rule(self.root),
        })

    def close(self):
        self.backend.close()


def store_for(args):
    """The MemoryStore a command works on (--dir, --backend), its warnings
    prefixed with the command's name."""
    backend = args.backend or os.environ.get("MEMORY_BACKEND")
    if backend and backend.lower() not in ("auto", "sqlite", "json", "postgres"):
        raise UsageError("MEMORY_BACKEND=%r is not one of: auto, sqlite, json, postgres" % backend)
    prog = args.get("prog", "memory")
    return MemoryStore(args.dir, backend=backend, warn=lambda msg: sys.stderr.write("%s: %s\n" % (prog, msg)),
                       sessions=args.get("sessions"), namespace=args.get("namespace"))
