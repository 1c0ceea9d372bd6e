"""MemoryStore: a memory folder and its index.  Picks the backend, keeps it fresh,
recovers from damage, reports status, and fills the embeddings of a provider
when one is set.  Ranking is not here (ranking.py)."""
import os
import sys
import time

from ..index.records import SyncReport, plan_sync, stat_digest
from ..text.params import DEFAULT_PARAMS
from ..base.records import IndexDamaged, StoreError, UsageError
from ..files.sources import (INDEX_DIRNAME, discover, discover_sessions, files_rule, is_session, locate_index_dir,
                             read_memory_lines, resolve_memory_dir, stat_sources, writable_dir)
from ..index.sqlite.index import NoFts5, SqliteBackend, sqlite_unavailable_reason


# MemoryStore: the one entry point for the other modules.

BACKUPS_KEPT = 3


class _BackgroundScan:
    """A sync's stat pass running beside the caller (see MemoryStore.answer_fresh)."""

    def __init__(self, store):
        import threading
        self.store, self.result = store, None
        self.thread = threading.Thread(target=self._scan, daemon=True)
        self.thread.start()

    def _scan(self):
        try:
            self.result = self.store.discover()
        except BaseException as exc:  # handed to finish(), in the caller's thread
            self.result = exc

    def finish(self):
        """Wait for the scan; sync what changed.  True if the index changed."""
        self.thread.join()
        if isinstance(self.result, BaseException):
            raise self.result
        found, _ = self.result
        store = self.store
        if store.reflects(found):
            return False
        store._recovering(store._sync, scan=self.result, resync=False)
        return True


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


def _process_alive(pid):
    if os.name == "nt":  # os.kill(pid, 0) would signal the process there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # it exists, owned by someone else
    return True


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
                 namespace=None):
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
        self.stale = False  # True when the last refresh could not update the index
        self.checked_by = None  # when a watcher checked the folder for the last refresh: what and when
        self.embedder = None  # an embedding provider (memory_search.make_embedder), or None: off
        self.embed_report = {"requested": "off", "provider": None, "model": None, "dim": None, "skipped": {}}
        self.embed_error = None  # why the last use of the embedder failed, or None
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

    # --- keeping the index fresh -------------------------------------------
    def sync(self, only=None, scan=None):
        """Bring the index up to date with the folder; cheap when nothing changed.
        With only (relative paths), look at those files alone; with scan (what
        discover returned), at what it found.  Raises StoreError when the
        index cannot be written."""
        return self._recovering(self._sync, only=only, scan=scan, resync=False)

    def refresh(self):
        """The freshness policy every door uses (CLI, MCP server, watch):
        sync before answering; if the index cannot be written (another process
        busy, a full disk), warn and answer from the last good index, with
        self.stale set.  Returns self.stale."""
        self.checked_by = self._watcher_check()
        if self.checked_by is None:
            try:
                self.sync()
                self.stale = False
            except StoreError as exc:
                self.warn("warning: %s; answers may be stale" % exc)
                self.stale = True
        else:
            self.stale = False
        if self.embedder is not None:
            self.fill_vectors()
        return self.stale

    # --- vectors of the embedding provider ---------------------------------------
    EMBED_BATCH = 64

    def fill_vectors(self, progress=None, limit=None):
        """Embed the indexed texts that have no vector of the embedder's model
        yet, a batch at a time (each batch is kept as soon as it is done).  A
        provider that fails (down, killed, bad vectors) stops the filling
        with a warning: the keyword index is unaffected and a later call goes
        on where this one stopped.  Returns how many texts were embedded."""
        from ..index.embedding_tables import EmbedError, EmbedTimeout, check_vector, embedding_text, pack_vector
        embedder, done = self.embedder, 0
        batch = getattr(self, "_embed_batch", self.EMBED_BATCH)  # a long-running process keeps what fitted
        answered, resume = False, None  # whether the provider has answered a batch; the size after a probe
        model = embedder.key
        self.embed_error = None
        while limit is None or done < limit:
            chunks = self.embeddings.missing(model, batch)
            if not chunks:
                break
            try:
                vectors = embedder.embed([embedding_text(c) for c in chunks])
                rows = [(c.hash, pack_vector(check_vector(v, embedder.dim))) for c, v in zip(chunks, vectors)]
                if len(vectors) != len(chunks):
                    raise EmbedError("%s returned %d vectors for %d texts"
                                     % (embedder.name, len(vectors), len(chunks)))
            except EmbedTimeout as exc:
                if batch > 1 and answered:  # a slow local server (a CPU model): smaller batches fit the timeout
                    batch = self._embed_batch = batch // 2
                    continue
                if batch > 1:  # slow, or answering nothing at all? one text tells, before 6 more timeouts
                    batch, resume = 1, batch // 2
                    continue
                self.embed_error = str(exc)
                self.warn("warning: embedding stopped (%s); the keyword search goes on without it" % exc)
                break
            except EmbedError as exc:
                self.embed_error = str(exc)
                self.warn("warning: embedding stopped (%s); the keyword search goes on without it" % exc)
                break
            self.embeddings.put(model, rows)
            done += len(rows)
            answered = True
            if resume:  # the provider answers: on with half the batch that timed out
                batch, resume = resume, None
                self._embed_batch = batch
            if progress:
                progress(done)
        return done

    def answer_fresh(self, answer):
        """answer() computed on an up-to-date index.  A small index is
        refreshed first; on a large one the stat pass runs in a thread while
        answer() runs on the index as it is, and answer() runs again only if
        something changed (rarely)."""
        if self.chunk_count() < self.params.background_scan_chunks or self.watcher_is_fresh() \
                or self.embedder is not None:
            self.refresh()
            return answer()
        scan = _BackgroundScan(self)
        result = answer()
        try:
            if scan.finish():
                result = answer()
            self.stale = False
        except StoreError as exc:
            self.warn("warning: %s; answers may be stale" % exc)
            self.stale = True
        return result

    def rebuild(self):
        """Back up the index (keeping the last few), then rebuild it from scratch."""
        backup = self._backup()
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

    # --- a watcher's heartbeat -------------------------------------------------
    # `search.sh watch` checks the folder every few seconds and says so in a
    # small file beside the index; while it is alive and recent, other
    # processes trust it and skip their own check (a stat of every file).

    HEARTBEAT = "watch.heartbeat"

    def _heartbeat_path(self):
        return os.path.join(self.index_dir, self.HEARTBEAT) if self.index_dir else None

    def beat(self, interval, every_file=None):
        """Say that this process (a watcher) checked the folder just now: its
        recent files, and every file at time every_file (default: now)."""
        path = self._heartbeat_path()
        if path:
            tmp = "%s.tmp-%d" % (path, os.getpid())
            now = time.time()
            with open(tmp, "w", encoding="utf-8") as f:
                f.write("%d %s %r %s %r\n" % (os.getpid(), interval, now, self._heartbeat_folder(),
                                              every_file or now))
            os.replace(tmp, path)  # no fsync: a lost heartbeat only means a scan

    def _heartbeat_folder(self):
        import zlib
        return "%08x" % zlib.crc32(os.path.realpath(self.root).encode("utf-8", "surrogatepass"))

    def stop_beating(self):
        path = self._heartbeat_path()
        if path and self.watcher() and self.watcher()["pid"] == os.getpid():
            os.unlink(path)

    def watcher(self):
        """{pid, interval, checked, every_file, alive, fresh} of the watcher of
        this folder (checked: when it last looked at the recent files; every_file:
        at all of them), or None."""
        path = self._heartbeat_path()
        try:
            with open(path, encoding="utf-8") as f:
                pid, interval, checked, folder, every_file = f.read().split()
            pid, interval, checked, every_file = int(pid), float(interval), float(checked), float(every_file)
        except (OSError, TypeError, ValueError):
            return None
        if folder != self._heartbeat_folder():
            return None  # a watcher of another folder sharing this index folder
        alive = _process_alive(pid)
        return {"pid": pid, "interval": interval, "checked": checked, "every_file": every_file, "alive": alive,
                "fresh": alive and time.time() - checked <= 2 * interval + 0.5}

    def _watcher_check(self):
        """What a live watcher checked for us ({by, recent_files_seconds_ago,
        every_file_seconds_ago}: it looks at every file less often than at
        the recent ones), or None when this process must check itself."""
        watcher = self.watcher() if self.index_dir else None
        if not (watcher and watcher["fresh"] and watcher["pid"] != os.getpid()):
            return None
        now = time.time()
        return {"by": "watch", "recent_files_seconds_ago": round(now - watcher["checked"], 1),
                "every_file_seconds_ago": round(now - watcher["every_file"], 1)}

    def watcher_is_fresh(self):
        found = self.watcher() if self.index_dir else None
        return bool(found and found["fresh"] and found["pid"] != os.getpid())

    def stale_files(self):
        """What a sync would change, without writing: (changed, removed, skipped)
        paths, skipped being (path, issue) pairs discovery passed over."""
        found, skipped = self.discover()
        changed, removed, _ = plan_sync(self.known_files(), found)
        return [f.path for f in changed], removed, skipped

    def _backup(self):
        if not self.index_dir or not any(os.path.exists(p) for p in self.backend.files_on_disk()[:1]):
            return None
        folder = os.path.join(self.index_dir, "backups")
        os.makedirs(folder, exist_ok=True)
        now = time.time()
        name = "%s-%06d-%s" % (time.strftime("%Y%m%d-%H%M%S", time.localtime(now)),
                               int(now % 1 * 1e6), self.backend.filename)
        dest = os.path.join(folder, name)
        partial = os.path.join(folder, ".partial-" + name)  # renamed when complete
        try:
            self.backend.backup_to(partial)
            os.replace(partial, dest)
        except Exception as exc:
            if os.path.exists(partial):
                os.unlink(partial)
            self.warn("could not back up the index (%s); rebuilding anyway" % exc)
            return None
        olds = sorted(n for n in os.listdir(folder) if n.endswith(self.backend.filename))
        for old in olds[:-BACKUPS_KEPT]:
            os.unlink(os.path.join(folder, old))
        return dest

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
