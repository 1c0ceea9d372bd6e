"""Preparing files for the index: chunks, their terms, document frequencies;
worker processes for big builds."""
import os
import sys
from collections import Counter

from ..text.bm25 import log_tf
from ..files.chunker import chunk_split_lines
from ..text.markdown import indexed_lines, line_pieces
from ..text.params import DEFAULT_PARAMS
from ..base.records import record
from ..files.sources import content_hash, file_date, is_session, read_source
from ..text.tokenizer import text_units, cached_grams, expand
from ..files.transcripts import transcript_date


# --- preparing a file for the index ----------------------------------------

ChunkTerms = record("ChunkTerms", "body head length features norm_terms n_grams")
ChunkTerms.__doc__ = ("What the index keeps of a chunk's terms: body and head are its index terms "
                      "(space-joined, for the keyword index), length how many; features the "
                      "distinct terms and trigrams (document frequencies count them); norm_terms "
                      "the sum of squared log tf and n_grams the trigram count (its vector length).")
IndexedChunk = record("IndexedChunk", "chunk units head_units terms")
IndexedChunk.__doc__ = "A Chunk with its lines' analysed units, its heading's, and its ChunkTerms."
PreparedFile = record("PreparedFile", "digest issue lines units chunks df date")
PreparedFile.__doc__ = ("A file ready for the index: its hash, any read issue, its masked lines and "
                        "their analysed units (stored_units), its IndexedChunks, how many of its chunks hold each "
                        "feature, and its date.  chunks is None when the content still has the "
                        "known hash (touched, not changed).")


def chunk_terms(line_units, head_units, expanded=None):
    """ChunkTerms from a chunk's analysed units.  Deleting a chunk from the
    keyword index repeats what was inserted, derived again from the stored
    units, so this must stay a pure function of its arguments.  expanded, a
    dict shared by the chunks of one file, expands each line once (chunks
    overlap)."""
    cache = {} if expanded is None else expanded
    if len(cache) > 512:  # overlap only ever reuses the last chunk's lines
        cache.clear()
    counts, body = Counter(), []
    for units in line_units:
        terms = cache.get(units)
        if terms is None:
            terms = cache[units] = (expand(units), expand(units, False))
        counts.update(terms[0])
        body.extend(terms[1])
    head = expand(head_units, False)
    counts.update(expand(head_units))
    grams = set()
    for t in counts:
        grams.update(cached_grams(t))
    norm_terms = sum(log_tf(n) ** 2 for n in counts.values())
    return ChunkTerms(" ".join(body), " ".join(head), len(body) + len(head),
                      grams.union(counts), norm_terms, len(grams))


def prepare_file(f, df=None, known_hash=None, params=DEFAULT_PARAMS):
    """Read, chunk and analyse one SourceFile (in a worker process for big
    syncs); df counts the chunks holding each feature (pass a Counter to add
    to it).  A file whose content still has known_hash is not analysed."""
    text, issue = read_source(f.abspath)
    df = Counter() if df is None else df
    date = transcript_date(f.abspath) if is_session(f.path) else file_date(f.path)
    if text is None:
        return PreparedFile(None, issue, [], [], [], df, date)
    digest = content_hash(text)
    if digest == known_hash:
        return PreparedFile(digest, issue, None, None, None, df, date)
    lines = indexed_lines(text)
    units = [stored_units(line, params.chunk_chars) for line in lines]
    out, expanded, headings = [], {}, {}
    for chunk in chunk_split_lines(f.path, lines, params):
        line_units = chunk_units(units, chunk)
        head_units = headings.get(chunk.heading)
        if head_units is None:
            head_units = headings[chunk.heading] = text_units(chunk.heading)
        terms = chunk_terms(line_units, head_units, expanded)
        out.append(IndexedChunk(chunk, line_units, head_units, terms))
        df.update(terms.features)
    return PreparedFile(digest, issue, lines, units, out, df, date)


def stored_units(line, chunk_chars):
    """A line's analysed units as the index stores them.  A line too long for
    one chunk is cut into pieces, each a chunk scored on its own: its units
    are a tuple of each piece's (what a read of a piece needs)."""
    if len(line) > chunk_chars:
        return tuple(text_units(piece) for piece in line_pieces(line, chunk_chars))
    return text_units(line)


def chunk_units(units, chunk):
    """A chunk's analysed units, one per line, from its file's (stored_units)."""
    if chunk.piece:
        return (units[chunk.start_line - 1][chunk.piece - 1],)
    return tuple(units[chunk.start_line - 1:chunk.end_line])


def _quiet_worker():
    """A worker's errors reach the parent through the pool; its own stderr would
    only print broken-pipe tracebacks if the parent were killed."""
    sys.stderr = open(os.devnull, "w")


def _prepare_batch(tasks, params):
    """Worker task: several (SourceFile, known hash), with one document-frequency
    Counter for all of them (merging one Counter per file in the parent cost
    seconds)."""
    df = Counter()
    results = [prepare_file(f, df, known, params)._replace(df=None) for f, known in tasks]
    return results, df


PARALLEL_BYTES = 4 * 1024 * 1024  # changed Markdown above this is analysed in parallel
PARALLEL_BATCH = 32               # files handed out at a time (bounds memory)


def _pipelined(pool, tasks, in_flight, params):
    """Batches of (file, known hash) through the pool, in order, with a bounded
    number in flight so results never pile up in memory."""
    from collections import deque
    batches = iter([tasks[i:i + PARALLEL_BATCH] for i in range(0, len(tasks), PARALLEL_BATCH)])
    pending = deque()
    for batch in batches:
        pending.append((batch, pool.apply_async(_prepare_batch, (batch, params))))
        if len(pending) >= in_flight:
            break
    while pending:
        batch, result = pending.popleft()
        results, df = result.get()
        following = next(batches, None)
        if following is not None:
            pending.append((following, pool.apply_async(_prepare_batch, (following, params))))
        for (f, _), analysed in zip(batch, results):
            yield f, analysed
        yield None, df  # the batch's document frequencies


def prepare_files(tasks, params=DEFAULT_PARAMS, parallel_bytes=None):
    """(SourceFile, PreparedFile) for each (SourceFile, known hash), in order;
    across worker processes when there is enough to do and more than one core,
    else in this process.  From workers, each batch ends with (None, Counter):
    the batch's document frequencies, which its AnalysedFiles leave out."""
    workers = min(os.cpu_count() or 1, 4)
    threshold = PARALLEL_BYTES if parallel_bytes is None else parallel_bytes
    if workers > 1 and sum(f.size for f, _ in tasks) > threshold:
        try:
            import multiprocessing
            methods = multiprocessing.get_all_start_methods()
            # never fork: the parent holds an open SQLite transaction
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            pool = ctx.Pool(workers, initializer=_quiet_worker)
        except (ImportError, OSError, ValueError):
            pool = None  # no process support here (some sandboxes): analyse serially
        if pool is not None:
            with pool:
                for item in _pipelined(pool, tasks, workers * 2, params):
                    yield item
            return
    for f, known in tasks:
        yield f, prepare_file(f, known_hash=known, params=params)
