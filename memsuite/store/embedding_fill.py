"""Filling the vectors of an embedding provider: the indexed texts that have
none yet, a batch at a time, shrinking the batch for a slow local server."""

from ..index.embedding_tables import EmbedError, EmbedTimeout, check_vector, embedding_text, pack_vector

EMBED_BATCH = 64


def fill_vectors(store, progress=None, limit=None):
    """Embed the indexed texts that have no vector of the embedder's model
    yet, a batch at a time (each batch is kept as soon as it is done).  A
    provider that fails (down, killed, bad vectors) stops the filling
    with a warning: the keyword index is unaffected and a later call goes
    on where this one stopped.  Returns how many texts were embedded."""
    embedder, done = store.embedder, 0
    batch = store.embed_batch or EMBED_BATCH  # a long-running process keeps what fitted
    answered, resume = False, None  # whether the provider has answered a batch; the size after a probe
    model = embedder.key
    store.embed_error = None
    while limit is None or done < limit:
        chunks = store.embeddings.missing(model, batch)
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
                batch = store.embed_batch = batch // 2
                continue
            if batch > 1:  # slow, or answering nothing at all? one text tells, before 6 more timeouts
                batch, resume = 1, batch // 2
                continue
            store.embed_error = str(exc)
            store.warn("warning: embedding stopped (%s); the keyword search goes on without it" % exc)
            break
        except EmbedError as exc:
            store.embed_error = str(exc)
            store.warn("warning: embedding stopped (%s); the keyword search goes on without it" % exc)
            break
        store.embeddings.put(model, rows)
        done += len(rows)
        answered = True
        if resume:  # the provider answers: on with half the batch that timed out
            batch, resume = resume, None
            store.embed_batch = batch
        if progress:
            progress(done)
    return done
