"""Params: every tunable number in one record, and the settings that shape an index."""

from .chinese import zh_table_stamp
from ..base.records import record


# Parameters: every tunable number in one record.  Tests and the benchmark
# pass their own Params instead of patching module globals.  The fields in
# INDEX_PARAMS shape what is stored; the index records them (with the
# tokenizer's version) and is rebuilt, with a message, when they change.

_PARAM_DEFAULTS = [
    # chunking (stored in the index)
    ("chunk_lines", 6),          # a chunk holds at most this many lines...
    ("chunk_overlap", 2),        # ...overlapping the previous one by this many...
    ("chunk_chars", 1000),       # ...and at most this many characters
    ("heading_weight", 1.0),     # BM25 weight of the heading trail (the body's is 1.0)
    # ranking (memory_search); chosen by measurement, see bench/ and the README
    ("weight_keyword", 0.7),     # hybrid = w * keyword + (1 - w) * vector
    ("keyword_scale", 1.5),      # keyword score = 1 - exp(-scale * bm25 / sum of idf)
    ("rarity_docs", 32),         # a word's rarity (BM25 idf) is read as in a folder of at least this many
                                 # chunks: in two notes, a word in one of them is not common
    ("gram_weight", 0.3),        # weight of character trigrams in the vector channel
    ("candidate_pool", 50),      # BM25 candidates the other channels re-score
    ("rerank_depth", 20),        # the best hits get the proximity bonus...
    ("proximity_weight", 0.15),  # ...worth this much (scores renormalised to [0, 1])
    ("date_weight", 0.1),        # bonus for a file dated on a day the query names
    ("when_weight", 0.1),        # bonus for a text saying what a question asks for: a time for "when", an
                                 # amount for "how much" (search/answers.py)
    ("label_weight", 0.1),       # bonus for a line labelled by a query word ('- 李明：...')
    ("recent_half_life", 0.0),   # --recent: days for a note's recency to halve (0: off, the default)...
    ("recent_weight", 0.3),      # ...and the share of its score that decays with age (see recency.py)
    ("duplicate_share", 0.5),    # a hit only repeating better ones keeps this share (1.0: off; search/results.py)...
    ("duplicate_similarity", 0.8),  # ...a line repeats another at this Jaccard similarity of their terms
    ("supersede_share", 0.95),   # a later note saying otherwise about the same words, within this share
                                 # of an earlier one's score, ranks above it (1.0: off; supersede.py)...
    ("supersede_sure_share", 0.8),  # ...within this share when the change is sure: the question asks how
                                    # things stand now, or the later note names the earlier value beside a new one
    ("feedback_docs", 3),        # an unsure question is searched again with its best hits' words (0: off; feedback.py)...
    ("feedback_weight", 0.15),   # ...the best hit's weighing this much beside the question's own 1.0...
    ("feedback_terms", 10),      # ...at most this many of them (only when its best hit is under the cut)
    ("score_floor", 0.05),       # by default hits scoring under this are not shown...
    ("relative_floor", 0.15),    # ...nor those under this share of the best hit
    ("function_weight", 0.1),    # a query's Chinese function words (什么时候, 是谁, 的) count this much...
    ("cross_weight", 0.3),       # ...a bigram across a function word's edge (频什 in 视频什么) this much
    ("break_weight", 0.3),       # ...one across two everyday words (机号 in 手机|号) this much
    ("unigram_weight", 1.0),     # ...and a single Chinese character of a longer word this much
    ("frame_weight", 1.0),       # a question's frame (电话, 名字, 来着; name, phone) against its topic...
    ("frame_only_share", 0.5),   # ...and a hit holding the frame but none of the topic keeps this share
    ("name_share", 0.3),         # a hit without a Chinese question's Latin name (John) keeps this share (1.0: off)
    ("word_cohesion", 1.0),      # two characters recurring with this PMI are one word...
    ("word_together", 0.8),      # ...or the rarer is seldom (this share) seen apart (in names only)...
    ("longer_word_share", 0.2),  # ...so 李明 inside 李明轩 counts this much of 李明
    ("semantic_weight", 0.3),    # with an embedding provider: its share of an English query's score...
    ("semantic_weight_cjk", 0.0),  # ...and of a Chinese one (all-MiniLM-L6-v2 does not read Chinese;
                                   # a multilingual model, MEMORY_EMBED_MULTILINGUAL, gets semantic_weight)
    ("semantic_fusion", "weighted"),  # how the semantic channel joins: "weighted" (a share of the score)
                                      # or "rrf" (reciprocal ranks order, the weighted scores are kept)
    ("rrf_k", 60),               # the k of 1 / (k + rank) under "rrf"
    ("semantic_scan_limit", 20000),  # pure Python (no numpy, no sqlite-vec) scans every vector up to
                                     # this many texts; above, only the lexical candidates are compared
    ("regional_weight", 0.9),    # a query word's other regional spelling (資料庫 / 数据库)...
    ("synonym_weight", 0.5),     # ...and its everyday synonyms count this much of the word
    ("lexicon_weight", 0.9),     # ...and its other-language words (data/en-zh-lexicon.txt: keyboard / 键盘) this
                                 # share of the words they translate (bench/crosslingual.py)
    ("merge_gap", 0),            # hits this close (0: touching) become one passage...
    ("merge_max_lines", 10),     # ...of at most this many lines...
    ("merge_min_share", 0.8),    # ...when the later hit scores this share of the first
    ("question_scores", 1),      # a prompt of several sentences: a hit also measured against each question in it
    ("long_prompt_terms", 10),   # a query of this many distinct words is a chat turn: its chat words...
    ("filler_weight", 0.3),      # ...(greetings, thanks, "ready", "next step"; text/filler.py) count this much
    ("topic_prior", 5.5),        # ...its scores (and those of a prompt of several sentences) scaled by its
                                 # topic words n as n / (n + this) (0: off)...
    ("topic_words", 8),          # ...against a turn of this many, which keeps its scores (ranking.topic_evidence)
    ("turn_pool", 150),          # a chat turn (ranking.is_chat_turn) scores this many BM25 candidates...
    ("file_weight", 0.7),        # ...orders a chunk by this share of its file's evidence...
    ("file_decay", 0.7),         # ...(its best chunks, each next one counting this much of the one before)...
    ("spread_share", 0.8),       # ...and its hits by their score times this for each better hit of their file
                                 # (file_weight 0 and spread_share 1.0: off; ranking.file_evidence, spread_files)
    ("turn_half_life", 20.0),    # ...and its notes by recent_weight of their score halving every this many days
                                 # from the newest note (0: off; recency.prefer_recent_turns)
    ("max_query_terms", 64),     # the rarest terms of a very long query
    ("probe_postings", 5000),    # FTS5 is asked for the rarest terms, up to this many postings
    ("fuzzy_prefix", 4),         # an unknown word also asks for words starting with 4 letters
    ("background_scan_chunks", 20000),  # above this, check the folder beside the query
    # linker
    ("common_entity_share", 0.2),  # entities in more chunks than this say little
    ("same_day_weight", 0.25),     # bonus for a related memory of the same day or file
]
Params = record("Params", [name for name, _ in _PARAM_DEFAULTS], [value for _, value in _PARAM_DEFAULTS])
Params.__doc__ = "Tunable numbers (see _PARAM_DEFAULTS for what each means)."
DEFAULT_PARAMS = Params()
DEFAULT_HALF_LIFE = 30.0  # days: what --recent (memory_search's recent) means without --half-life
INDEX_PARAMS = ("chunk_lines", "chunk_overlap", "chunk_chars", "heading_weight")
# Bump when tokenize(), index_terms() or render_transcript() change what they return:
# the index's keyword rows are deleted by re-deriving their terms, so an index
# must never outlive the tokenizer that built it (tests/test_tokenizer.py
# pins the output for a probe text).
TOKENIZER_VERSION = 13  # 8: transcripts rendered redacted (an index of them must not keep secrets); 9: without compaction
# summaries; 10: more secret shapes redacted, <private> nested and across messages, OpenClaw's session notes redacted;
# 11: an irregular form as its base word (went: go; irregular.py); 12: informal and British forms as
# their word (kids: child, colour: color); 13: a note's YAML front matter not indexed


def index_settings(params, folder=None):
    """What an index built with these parameters depends on, as one string
    (the tokenizer's version, the size of its Chinese table, the chunking),
    and, for an index kept outside its memory folder, which folder it is of."""
    parts = ["tokenizer=%d" % TOKENIZER_VERSION, "zh-table=%d" % zh_table_stamp()]
    parts += ["%s=%r" % (name, getattr(params, name)) for name in INDEX_PARAMS]
    if folder:
        import zlib
        parts.append("folder=%08x" % zlib.crc32(folder.encode("utf-8", "surrogatepass")))
    return " ".join(parts)


def settings_change(old, new):
    """A short description of what differs between two index_settings strings."""
    before = dict(p.split("=", 1) for p in (old or "").split() if "=" in p)
    after = dict(p.split("=", 1) for p in new.split() if "=" in p)
    if before.get("folder") != after.get("folder") and "folder" in after:
        return "it was built for another memory folder (give each folder its own MEMORY_INDEX_DIR)"
    changed = ["%s %s -> %s" % (k, before.get(k, "?"), after[k]) for k in after if before.get(k) != after[k]]
    return ", ".join(changed) or "settings changed"
