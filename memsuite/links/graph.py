"""The co-occurrence graph: entities, their mentions, related memories."""
import math
from collections import Counter, defaultdict

from ..text.chinese import fold, pair_binds, is_cjk
from ..text.citations import cite, parse_reference, ranges_overlap
from .entities import EXTRACTOR_VERSION, KIND_LABEL, STATISTICAL_KINDS, defined_names, entity_key, file_mentions
from ..text.markdown import content_lines
from ..base.records import StoreError, UsageError, record
from ..base.display import elided
from ..files.sources import cited_path, safe_join
from .same import SameKeys
from ..store.memory_store import write_failure


# The graph: sync, entities, related memories, pictures

Entity = record("Entity", "key name kind chunks files mentions expansion")
Entity.__doc__ = ("An entity: its key, most frequent spelling, kind, how widely it is mentioned, "
                  "and for an acronym the words it stands for (or None).")


def _digest(names):
    if not names:
        return "-"
    try:  # the SHA-1 core alone: hashlib loads OpenSSL, ~12M instructions of every link.sh call
        from _sha1 import sha1
    except ImportError:
        from hashlib import sha1
    return sha1("\n".join(names).encode("utf-8")).hexdigest()[:12]


def _without_fragments(entities):
    """Leave out Chinese terms that are part of a longer entity mentioned
    nearly as often (明轩 of 李明轩, 点地图 of 提交站点地图)."""
    chinese = [e for e in entities.values() if e.kind in ("term", "name", "place") and is_cjk(e.key[:1])]
    cjk_keys = {e.key for e in chinese}
    within = {}  # every shorter piece of a key: the most chunks of an entity holding it
    for longer in chinese:
        key = longer.key
        for size in range(1, len(key)):
            for i in range(len(key) - size + 1):
                piece = key[i:i + size]
                within[piece] = max(within.get(piece, 0), longer.chunks)
    return {k: e for k, e in entities.items()
            if not (k in cjk_keys and e.kind == "term" and within.get(e.key, 0) >= 0.7 * e.chunks)}
Appearance = record("Appearance", "id path start_line end_line heading date snippet count")
Related = record("Related", "id path start_line end_line heading date score shared snippet")
Related.__doc__ = "A memory related to a target, with the entities they share (names)."

class LinkGraph:
    """The entity graph of a MemoryStore (call sync() before reading).
    Entities in more than params.common_entity_share of the chunks say
    little about relatedness (and would make every lookup touch most of the
    index); params.same_day_weight favours memories of one batch of work."""

    def __init__(self, store, params=None):
        self.store = store
        self.params = params or store.params
        self.names = self._defined_names()
        # the names are part of the version: a People list that changes re-reads every note
        self.links = SameKeys(store.links("%s names=%s" % (EXTRACTOR_VERSION, _digest(sorted(self.names)))))
        self._entities = None

    def _defined_names(self):
        """The Chinese names the folder's undated notes (MEMORY.md's People
        list) define, which win over a shorter or longer reading elsewhere."""
        undated = [p for p, date in self.store.file_dates().items() if date is None]
        return defined_names(c.text for p in undated for c in self.store.chunks_of(p))

    # --- sync ----------------------------------------------------------------
    def sync(self):
        """Re-extract the files whose content changed since the last sync:
        (changed, removed).  A write that fails (full disk, busy index) raises
        StoreError and leaves the last good graph."""
        current = {p: state.hash for p, state in self.store.known_files().items() if state.hash}
        known = self.links.known_files()
        changes = []
        cohesive = self._cohesion()
        for path, digest in sorted(current.items()):
            if known.get(path) != digest:
                chunks = [(c.ordinal, c.text) for c in self.store.chunks_of(path)]
                changes.append((path, digest, file_mentions(path, chunks, cohesive, self.names)))
        removed = [p for p in known if p not in current]
        changes.extend((p, None, []) for p in removed)
        if changes:
            try:
                self.links.apply(changes)
            except Exception as exc:
                raise write_failure(exc, self.store.index_dir) or exc
            self._entities = None
        return [c[0] for c in changes if c[1] is not None], removed

    def _cohesion(self):
        """cohesive(pair): whether two characters are one word in the folder as
        it is now (the search's test, pair_binds, on its frequencies)."""
        n_docs, cache = self.store.chunk_count(), {}

        def cohesive(pair):
            if pair not in cache:
                dfs = self.store.doc_freqs([pair, pair[0], pair[1]])
                cache[pair] = pair_binds(pair, dfs, n_docs, self.params.word_cohesion, self.params.word_together)
            return cache[pair]
        return cohesive

    # --- entities ------------------------------------------------------------
    def entities(self):
        """{key: Entity} of every accepted entity."""
        if self._entities is None:
            spellings = defaultdict(Counter)
            for key, spelling, kind, n in self.links.spelling_rows():
                spellings[key][(kind, spelling)] += n
            out = {}
            for key, chunks, files, mentions in self.links.entity_rows():
                forms = {f: n for f, n in spellings.get(key, {}).items() if f[0] != "expansion"}
                if not forms:
                    continue
                starts = {sp for kind, sp in forms if kind == "capstart"}
                if starts:  # a word capitalised where any word is counts only for a name
                    others = {f: n for f, n in forms.items() if f[0] != "capstart"}  # written so elsewhere
                    if sum(others.values()) < 2 or not starts & {sp for _, sp in others}:
                        if not any(kind not in STATISTICAL_KINDS for kind, _ in others):
                            continue  # ("Let" once mid-sentence)
                        forms = others  # named as written elsewhere ("Got it" is not "GoT")
                explicit = any(kind not in STATISTICAL_KINDS for kind, _ in forms)
                chinese = all(kind in ("zhname", "zhplace") for kind, _ in forms)
                if not explicit and (chunks < 2 if chinese else files < 2):
                    continue  # a statistical candidate that does not recur
                (kind, name), _ = max(forms.items(), key=_display_rank)
                name = {"tag": "#", "mention": "@"}.get(kind, "") + name
                expansions = [s for (k, s), _ in spellings[key].most_common() if k == "expansion"]
                out[key] = Entity(key, name, KIND_LABEL.get(kind, kind), chunks, files, mentions,
                                  expansions[0] if expansions else None)
            out = _without_fragments(out)
            self._entities = out
        return self._entities

    def spellings(self):
        """{key: [every spelling seen]}."""
        out = defaultdict(list)
        for key, spelling, _, _ in self.links.spelling_rows():
            out[key].append(spelling)
        return out

    def find(self, name):
        """The entity called `name` (any case, with or without #/@), or StoreError
        naming the closest matches."""
        entities = self.entities()
        raw = name.strip()
        for kind in ("name", "url"):
            key = self.links.kept(entity_key(kind, raw))  # (Hangzhou: the entity 杭州 is)
            if key in entities:
                return entities[key]
        by_name = {e.name.casefold(): e for e in entities.values()}
        if raw.casefold() in by_name:
            return by_name[raw.casefold()]
        wanted = self.links.kept(entity_key("name", raw))
        seen = next(((chunks, files) for key, chunks, files, _ in self.links.entity_rows() if key == wanted), None)
        if seen:  # a candidate that does not recur (graph.entities)
            chunks, files = seen
            raise StoreError("%r is in %d chunk%s of %d file%s only: an entity recurs (a Chinese word in 2 chunks, "
                             "others in 2 files); search.sh %s finds it"
                             % (raw, chunks, "s" * (chunks != 1), files, "s" * (files != 1), raw))
        import difflib
        names = sorted({e.name for e in entities.values()})
        close = difflib.get_close_matches(raw, names, n=3, cutoff=0.6) or \
            [n for n in names if raw.casefold() in n.casefold()][:3]
        hint = (" (did you mean %s?)" % " or ".join(close)) if close else ""
        raise StoreError("unknown entity %r%s" % (elided(raw), hint))

    def idf(self, entity):
        n = max(self.store.chunk_count(), 1)
        return math.log(1.0 + n / max(entity.chunks, 1))

    # --- lookups ---------------------------------------------------------------
    def appearances(self, entity, limit=20):
        """Where an entity appears, newest first (undated files last)."""
        counts = {(p, o): n for _, p, o, n in self.links.mentions_of([entity.key])}
        rows = self._rows(counts)
        spellings = [entity.name, entity.key.lstrip("#@")] + self.spellings().get(entity.key, [])  # (杭州 and Hangzhou)
        out = []
        for (p, o), row in rows.items():
            out.append(Appearance(cite(p, row.start_line, row.end_line), p, row.start_line, row.end_line, row.heading,
                                  row.date, _line_with(row.text, spellings), counts[(p, o)]))
        out.sort(key=lambda a: (a.date is not None, a.date or "", a.path, -a.start_line), reverse=True)
        return out[:limit]

    def neighbours(self, entity, limit=10):
        """[(Entity, weight)]: the entities most often in the same chunk as
        this one (in a list, on the same item)."""
        entities = self.entities()
        refs = [(p, o) for _, p, o, _ in self.links.mentions_of([entity.key])]
        counts = Counter()
        in_chunks = self.links.keys_in_chunks(refs)
        items = self._list_items(in_chunks)
        for ref, keys in in_chunks.items():
            if ref in items:
                keys = set().union(*[line for line in items[ref] if entity.key in line]) or keys
            counts.update(k for k in keys if k in entities and k != entity.key)
        out = [(entities[k], w) for k, w in counts.items()]
        out.sort(key=lambda ew: (-ew[1], -ew[0].chunks, ew[0].name))
        return out[:limit]

    def links_among(self, keys):
        """[(Entity, Entity, chunks shared)] for every linked pair of the given entities."""
        entities = self.entities()
        chunks = defaultdict(set)
        for key, p, o, _ in self.links.mentions_of(keys):
            chunks[key].add((p, o))
        ordered = sorted(chunks)
        by_chunk = defaultdict(set)
        for key, refs in chunks.items():
            for ref in refs:
                by_chunk[ref].add(key)
        items = self._list_items(by_chunk)
        out = []
        for i, a in enumerate(ordered):
            for b in ordered[i + 1:]:
                shared = sum(1 for ref in chunks[a] & chunks[b]
                             if ref not in items or any(a in line and b in line for line in items[ref])
                             or not any(a in line for line in items[ref]) or not any(b in line for line in items[ref]))
                if shared:
                    out.append((entities[a], entities[b], shared))
        out.sort(key=lambda e: (-e[2], e[0].name, e[1].name))
        return out

    def _list_items(self, keys_by_chunk):
        """{(path, ordinal): [set of keys of each item]} for the chunks that
        are lists (three items or more, each naming its own entities): one
        list of people and places (MEMORY.md's People) says who goes with
        which place item by item, not that all of them go together."""
        candidates = {ref: keys for ref, keys in keys_by_chunk.items() if len(keys) >= 3}
        if not candidates:
            return {}
        spellings = self.spellings()
        out = {}
        for ref, row in self._rows(candidates).items():
            lines = [l for l in row.text.split("\n") if l.strip()]
            items = [l for l in lines if l.lstrip()[:2] in ("- ", "* ", "+ ") or l.lstrip()[:1].isdigit()]
            if len(items) < 3:
                continue
            folded = [fold(l) for l in items]
            named = [{k for k in candidates[ref] if any(fold(sp) in line for sp in spellings.get(k, ()) if sp)}
                     for line in folded]
            if sum(1 for n in named if n) >= 3:
                out[ref] = named
        return out

    def _rows(self, chunk_refs):
        """{(path, ordinal): StoredChunk} for chunk references."""
        by_path = defaultdict(set)
        for p, o in chunk_refs:
            by_path[p].add(o)
        out = {}
        for p, ordinals in by_path.items():
            for row in self.store.chunks_of(p):
                if row.ordinal in ordinals:
                    out[(p, row.ordinal)] = row
        return out

    def resolve_target(self, target):
        """A chunk id 'path#n', a citation 'path:31-44' or a file path ->
        (path, [ordinals]).  ValueError for a malformed reference."""
        path, first, last = parse_reference(target)
        path = cited_path(self.store.root, path)
        safe_join(self.store.root, path)
        rows = self.store.chunks_of(path)
        if not rows:
            raise StoreError("no memory file %r in the index" % path)
        if first == "#":
            if last not in {r.ordinal for r in rows}:
                raise StoreError("no chunk %s (the file has %d chunks, #0-#%d)" % (target, len(rows), len(rows) - 1))
            return path, [last]
        if first is not None:
            ordinals = sorted(r.ordinal for r in rows if r.start_line <= last and r.end_line >= first)
            if not ordinals:
                raise StoreError("no indexed text at %s" % target)
            return path, ordinals
        return path, sorted(r.ordinal for r in rows)

    def related(self, target, limit=5, scoring="overlap"):
        """Memories sharing entities with a chunk ('path#n'), lines ('path:31-44')
        or a file, best first."""
        path, ordinals = self.resolve_target(target)
        whole_file = parse_reference(target)[1] is None
        return self.related_to_chunks([(path, o) for o in ordinals], limit, scoring, exclude_file=whole_file)

    def related_to_chunks(self, chunks, limit=5, scoring="overlap", exclude_file=False):
        """Chunks sharing entities with the given ones.  Scored by the idf-weighted
        share of the target's entities they contain ("overlap"; measured better
        than weighted Jaccard on LoCoMo multi-hop, see bench/linker.py)."""
        entities = self.entities()
        own = set()
        for p, o in chunks:
            own.update(k for k, _, _, _ in self.links.mentions_in(p, o) if k in entities)
        if not own:
            return []
        n = max(self.store.chunk_count(), 1)
        weight = {k: self.idf(entities[k]) for k in own}
        useful = [k for k in own if entities[k].chunks <= max(50, self.params.common_entity_share * n)] \
            or list(own)
        targets = set(chunks)
        target_rows = self._rows(targets)
        shared = defaultdict(set)
        for key, p, o, _ in self.links.mentions_of(useful):
            if (p, o) in targets or (exclude_file and p in {t[0] for t in targets}):
                continue
            shared[(p, o)].add(key)
        scored = {ref: sum(weight[k] for k in keys) for ref, keys in shared.items()}
        pool = sorted(scored, key=lambda r: (-scored[r], r))[:max(50, limit * 5)]
        rows = self._rows(pool)
        total_own = sum(weight.values())
        results = []
        for ref in pool:
            row = rows.get(ref)
            if row is None or _overlaps(row, target_rows.values()):
                continue
            if scoring == "jaccard":
                theirs = {k for k, _, _, _ in self.links.mentions_in(*ref) if k in entities}
                union = total_own + sum(self.idf(entities[k]) for k in theirs - own)
                score = scored[ref] / union if union else 0.0
            else:
                score = scored[ref] / total_own
            bonus = self.params.same_day_weight
            if bonus and _same_day(row, target_rows.values()):
                score = (score + bonus) / (1 + bonus)
            names = [entities[k].name for k in sorted(shared[ref], key=lambda k: (-weight[k], k))]
            results.append(Related(cite(ref[0], row.start_line, row.end_line), ref[0], row.start_line, row.end_line,
                                   row.heading, row.date, round(score, 4), names,
                                   _line_with(row.text, names)))
        results.sort(key=lambda r: (-r.score, r.path, r.start_line))
        kept = []
        for r in results:  # overlapping windows of one section: the better one only
            if not _overlaps(r, kept):
                kept.append(r)
        return kept[:limit]

    def related_to_hits(self, hits, limit=3):
        """Memories linked to search hits by shared entities, not already among them."""
        seen = {(h.path, h.start_line, h.end_line) for h in hits}
        out = []
        for hit in hits[:3]:
            ordinals = [c.ordinal for c in self.store.chunks_of(hit.path)
                        if ranges_overlap(c.start_line, c.end_line, hit.start_line, hit.end_line)]
            for r in self.related_to_chunks([(hit.path, o) for o in ordinals], limit=limit * 2):
                if (r.path, r.start_line, r.end_line) in seen or any(o.id == r.id for o, _ in out):
                    continue
                if _overlaps(r, hits):
                    continue
                out.append((r, hit.id))
        out.sort(key=lambda rh: -rh[0].score)
        return out[:limit]

    # --- tables and pictures ---------------------------------------------------
    def table(self, top=None, kind=None):
        ents = [e for e in self.entities().values() if kind is None or e.kind == kind]
        ents.sort(key=lambda e: (-e.chunks, -e.mentions, e.name))
        return ents[:top] if top else ents

    def strongest_links(self, top=10, among=60):
        """The strongest links among the `among` most mentioned entities."""
        return self.links_among([e.key for e in self.table(among)])[:top]

    def subgraph(self, entity=None, depth=1, top=15):
        """(nodes [Entity], edges [(Entity, Entity, weight)]) for a picture.

        Around an entity: breadth-first to `depth`, the `top` strongest
        neighbours at each step.  Without one: the `top` most mentioned
        entities and the links among them."""
        entities = self.entities()
        if entity is None:
            nodes = {e.key for e in self.table(top)}
        else:
            nodes, frontier = {entity.key}, [entity]
            for _ in range(depth):
                nxt = []
                for e in frontier:
                    for other, _ in self.neighbours(e, limit=top):
                        if other.key not in nodes and len(nodes) < top:
                            nodes.add(other.key)
                            nxt.append(other)
                frontier = nxt
        edges = _backbone(self.links_among(nodes), entity.key if entity else None)
        return [entities[k] for k in sorted(nodes, key=lambda k: (-entities[k].chunks, k))], edges


_KIND_RANK = {"name": 5, "cap": 5, "capstart": 5, "link": 4, "term": 4, "phrase": 4, "caps": 3, "acronym": 3,
              "url": 2, "path": 2, "mention": 1, "tag": 1, "code": 0}


def _display_rank(form):
    """Which spelling names an entity: the most frequent; on a tie the proper
    name over the tag or code form, capitals over lower case."""
    (kind, spelling), count = form
    return count, _KIND_RANK.get(kind, 0), spelling != spelling.lower(), spelling


def _same_day(row, targets):
    """Written the same day (same date, or the same undated file) as a target."""
    return any((row.date is not None and row.date == t.date) or row.path == t.path for t in targets)


def _backbone(edges, centre=None, per_node=3):
    """Keep a picture readable: each node's strongest few links (all of the centre's)."""
    kept, degree = [], Counter()
    for a, b, w in edges:
        if centre in (a.key, b.key) or (degree[a.key] < per_node and degree[b.key] < per_node):
            kept.append((a, b, w))
            degree[a.key] += 1
            degree[b.key] += 1
    return kept


def _overlaps(row, others):
    return any(o.path == row.path and ranges_overlap(o.start_line, o.end_line, row.start_line, row.end_line)
               for o in others)


def _line_with(text, needles, width=160):
    """The first line of text containing one of the needles (else the first line), cut to width."""
    all_lines = text.split("\n")
    lines = [all_lines[i].strip() for i in content_lines(all_lines)]
    if not lines:
        return ""
    lowered = [n.casefold() for n in needles if n]
    line = next((l for l in lines if any(n in l.casefold() for n in lowered)), lines[0])
    return line if len(line) <= width else line[:width - 1] + "…"


def entity_json(e):
    out = {"name": e.name, "kind": e.kind, "chunks": e.chunks, "files": e.files, "mentions": e.mentions}
    if e.expansion:
        out["expansion"] = e.expansion
    return out


def synced_graph(store):
    """The LinkGraph of a store, its links brought up to date (a failed write
    leaves the last good graph, with a warning)."""
    graph = LinkGraph(store)
    try:
        graph.sync()
    except StoreError as exc:
        store.warn("warning: %s; links may be stale" % exc)
    return graph


def entity_report(graph, name, limit=20):
    """(Entity, [Appearance], [(Entity, weight)]) and the same as JSON-ready data."""
    entity = graph.find(name)
    places = graph.appearances(entity, limit)
    neighbours = graph.neighbours(entity, 10)
    return (entity, places, neighbours), dict(entity_json(entity), appears=[
        {"id": a.id, "path": a.path, "start_line": a.start_line, "end_line": a.end_line,
         "heading": a.heading, "date": a.date, "snippet": a.snippet, "count": a.count} for a in places],
        related_entities=[dict(entity_json(e), weight=w) for e, w in neighbours])


def related_report(graph, target, limit=5):
    """([Related], JSON-ready data) for a chunk id, citation or file."""
    try:
        results = graph.related(target, limit)
    except ValueError as exc:
        raise UsageError(str(exc))
    return results, {"target": target, "results": [related_json(r) for r in results]}


def related_json(r, **extra):
    return dict({"id": r.id, "path": r.path, "start_line": r.start_line, "end_line": r.end_line,
                 "heading": r.heading, "score": r.score, "shared": r.shared, "snippet": r.snippet}, **extra)
