#!/usr/bin/env python3
"""The agent hooks (search.sh hook), measured.

recall   LoCoMo questions sent as UserPromptSubmit prompts: the share whose
         injected text holds a gold line at 300, 500 and 1,000 tokens; the
         share of absent-topic prompts (bench/nomatch.txt kept per folder as
         bench/calibration.py keeps them) and of LoCoMo's adversarial
         questions that inject nothing.  Tuning and held-out conversations
         side by side, for a grid of score cuts (choose on the tuning half).
capture  12 transcripts written for this benchmark (Claude Code and OpenClaw
         JSONL, Chinese and English) with stated facts, planted secrets,
         private blocks, tool noise, thinking and injected memory, captured
         twice through search.sh hook: stated facts found by a search, secrets
         and noise absent from the whole memory folder, duplicate blocks.
cost     whole-process hook calls beside a cold search at 5 MB (bench/corpus.py
         builds the folder); PreCompact on a 10 MB transcript.
resident a one-turn session's hooks cold and through the resident process,
         interleaved; the prompt hook with the resident stopped or killed.

Usage: python3 bench/hooks.py [--parts recall,capture,cost,resident] [--data DIR] [--runs 7] [--before DIR]
Timings use MEMORY_PYTHON (default /usr/bin/python3).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import quality  # noqa: E402  (puts the suite on sys.path)
import calibration  # noqa: E402
import corpus  # noqa: E402
import memory_search  # noqa: E402
import memory_store  # noqa: E402
from memsuite.doors import hooks  # noqa: E402
from memsuite.doors.resident import read_pid_file  # noqa: E402
from memsuite.search import recall  # noqa: E402
from memsuite.text.tokenizer import tokenize  # noqa: E402

SUITE = os.path.dirname(HERE)
SEARCH = os.path.join(SUITE, "search.sh")
BUDGETS = (300, 500, 1000)
WHOLE_AT = 500  # the budget at which a gold line must be sent whole (whole@500t), not cut to its best part
CUTS = (0.3, 0.35, 0.4, 0.45, 0.5)


# --- recall --------------------------------------------------------------------

def recall_records(data):
    """[(split, kind, (hits, topic), gold, query, gold lines)] for LoCoMo: kind
    answer / absent / adversarial; gold lines as gold_texts gives them."""
    questions = quality.load_questions(data, "locomo")
    adversarial = quality.load_questions(data, "locomo", adversarial=True)
    absent = calibration.nomatch_queries("en")
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        for root, qs in quality.corpus_roots(data, "locomo", questions + adversarial).items():
            copy = quality.copy_corpus(root, tmp)
            store = memory_store.MemoryStore(copy, index_dir=os.path.join(copy, ".memory"))
            store.sync()

            def hits_of(prompt):
                """(hits, the prompt's recall.prompt_topic), as the prompt hook sees them."""
                if hooks.trivial(prompt):
                    return [], None
                query = " ".join(prompt.split())[:hooks.MAX_QUERY_CHARS]
                try:
                    return memory_search.search(store, query, limit=hooks.RECALL_HITS), recall.prompt_topic(store, query)
                except memory_store.UsageError:
                    return [], None
            for q in qs:
                gold = {(g["path"], g["line"]) for g in q.get("gold", [])}
                kind = "adversarial" if q.get("adversarial") else "answer"
                records.append((q["split"], kind, hits_of(q["query"]), gold, q["query"], gold_texts(copy, gold)))
            for query, split in absent:
                if calibration.absent_from(copy, query):
                    records.append((split, "absent", hits_of(query), set(), query, []))
            store.close()
    return records


def gold_texts(folder, gold):
    """[(path, line, text)] of the gold lines, the text as a hook shows it (a bullet's "- " off)."""
    out = []
    for path, line in sorted(gold):
        try:
            with open(os.path.join(folder, path), encoding="utf-8") as f:
                text = f.read().split("\n")[line - 1].strip()
        except (OSError, IndexError):
            continue
        text = text[2:] if text.startswith("- ") else text
        if text:
            out.append((path, line, text))
    return out


def answer_words(gold_lines, ranges, query, sent):
    """Of the cited gold lines, the best share of a line's own words (not
    the prompt's) that its shown piece holds: what of the answer arrived."""
    asked = set(tokenize(query))
    shown = [l.replace("\u2026", "").strip() for l in sent.split("\n")]
    shown = [l[2:] if l.startswith("- ") else l for l in shown if l]
    shares = []
    for path, line, text in gold_lines:
        own = set(tokenize(text)) - asked
        if not own or not any(p == path and s <= line <= e for p, s, e in ranges):
            continue
        pieces = [l for l in shown if l in text]
        got = set(tokenize(max(pieces, key=len))) if pieces else set()
        shares.append(len(own & got) / float(len(own)))
    return max(shares) if shares else 0.0


def recall_metrics(records, cut, floor, packer="lines", line_share=recall.LINE_SHARE):
    """{split: {metric: (value, count)}} for one setting (the prompt hook's recall.choose and pack_lines)."""
    out = {}
    for split in ("tune", "held"):
        sums, counts = {}, {}

        def tally(key, value):
            sums[key] = sums.get(key, 0) + value
            counts[key] = counts.get(key, 0) + 1
        for sp, kind, (hits, topic), gold, query, texts in records:
            if sp != split:
                continue
            chosen = recall.choose(hits, query, cut, floor, topic=topic)
            if kind != "answer":
                tally("%s: nothing" % kind, not chosen)
                continue
            for b in BUDGETS:
                text, ranges = "", []
                if chosen and packer == "lines":
                    text, ranges = recall.pack_lines(chosen, query, b, line_share,
                                                     earlier=getattr(chosen, "earlier", None))[:2]
                elif chosen:
                    text, entries = memory_search.pack(chosen, query, b)
                    ranges = [(e.path, e.start_line, e.end_line) for e in entries]
                found = any(p == rp and s <= l <= e for rp, s, e in ranges for p, l in gold)
                tally("R@%dt" % b, found)
                if b == WHOLE_AT:  # the answer's line itself, not cut away
                    tally("whole@%dt" % b, any(t in text for _, _, t in texts))
                    if found:  # of a cited gold line, the share of its own words (not the prompt's) sent
                        tally("words@%dt" % b, answer_words(texts, ranges, query, text))
        out[split] = {k: (sums[k] / float(counts[k]), counts[k]) for k in counts}
    return out


METRICS = ("R@300t", "R@500t", "R@1000t", "whole@500t", "words@500t", "absent: nothing", "adversarial: nothing")


def _row(label, m):
    return "| %s | %s |" % (label, " | ".join("%.2f \\| %.2f" % (m["tune"][k][0], m["held"][k][0]) for k in METRICS))


def run_recall(data):
    records = recall_records(data)
    n = recall_metrics(records, 1.0, 1.0)
    print("### Recall by injection (LoCoMo), tuning | held-out\n")
    print("prompts: answerable %d | %d, absent topics %d | %d, adversarial %d | %d\n" % tuple(
        n[sp][k][1] for k in ("R@500t", "absent: nothing", "adversarial: nothing") for sp in ("tune", "held")))
    print("The cut (nothing is injected unless the best hit scores at least this), packing as by default:\n")
    print("| cut | " + " | ".join(METRICS) + " |")
    print("|---|" + "---|" * len(METRICS))
    for cut in CUTS:
        print(_row("%.2f%s" % (cut, " (default)" if cut == recall.RECALL_CUT else ""),
                   recall_metrics(records, cut, recall.RECALL_FLOOR)))
    print("\nHow the budget is filled once the cut (%.2f) is passed:\n" % recall.RECALL_CUT)
    print("| floor | what is sent | R@300t | R@500t | R@1000t | whole@500t | words@500t |")
    print("|---|---|---|---|---|---|---|")
    default = (recall.RECALL_FLOOR, "lines", recall.LINE_SHARE)
    for floor, packer, share in ((recall.RECALL_FLOOR, "passages", 0), (0.1,) + default[1:], (0.3,) + default[1:],
                                 (recall.RECALL_FLOOR, "lines", 0.04), (recall.RECALL_FLOOR, "lines", 0.1),
                                 (recall.RECALL_FLOOR, "lines", 1.0), default):
        m = recall_metrics(records, recall.RECALL_CUT, floor, packer, share)
        if packer == "passages":
            sent = "whole hits, cut at a line, until one does not fit (search.sh context)"
        else:
            sent = "the best lines of any hit first, the %d best whole within %.2f of the budget, the others within %.2f" % (
                recall.WHOLE_LINES, recall.WHOLE_SHARE, share)
        label = "%.2f%s" % (floor, " (default)" if (floor, packer, share) == default else "")
        print("| %s | %s | %s |" % (label, sent, " | ".join(
            "%.2f \\| %.2f" % (m["tune"][k][0], m["held"][k][0]) for k in METRICS[:5])))
    print()


# --- capture ---------------------------------------------------------------------

NOISE = "TOOLDUMP " + "x" * 60 + "\n"


def cc(role, content, **extra):
    rec = {"type": role, "message": {"role": role, "content": content}, "uuid": "u", "sessionId": "s",
           "timestamp": "2026-11-30T10:00:00Z", "cwd": "/home/me/proj"}
    rec.update(extra)
    return json.dumps(rec, ensure_ascii=False)


def oc(role, content):
    return json.dumps({"type": "message", "id": "m", "timestamp": "2026-11-30T10:00:00Z",
                       "message": {"role": role, "content": content}}, ensure_ascii=False)


def transcript(fmt, turns, secrets):
    """JSONL lines of one session: the scenario's turns with noise between them."""
    out = [json.dumps({"type": "session", "version": 3, "id": "x", "cwd": "/ws"})] if fmt == "openclaw" else []
    line = cc if fmt == "claude" else oc
    for i, (role, text) in enumerate(turns):
        if role == "user":
            out.append(line("user", text if fmt == "claude" else [{"type": "text", "text": text}]))
            continue
        if fmt == "claude":
            out.append(line("assistant", [{"type": "thinking", "thinking": "THINKNOISE planning step %d" % i},
                                          {"type": "text", "text": text},
                                          {"type": "tool_use", "id": "t%d" % i, "name": "Bash",
                                           "input": {"command": "cat log.txt"}}]))
            out.append(line("user", [{"type": "tool_result", "tool_use_id": "t%d" % i, "content": NOISE * 80}]))
        else:
            out.append(line("assistant", [{"type": "thinking", "thinking": "THINKNOISE %d" % i},
                                          {"type": "text", "text": text},
                                          {"type": "toolCall", "id": "c%d" % i, "name": "exec",
                                           "arguments": {"command": "cat log.txt"}}]))
            out.append(line("toolResult", [{"type": "text", "text": NOISE * 80}]))
    # what a hook injected earlier, as agents record it: never to be captured again
    inj = "<memory-notes source=\"memory-suite\">\n[MEMORY.md:1-2]\nINJECTEDNOISE old note\n</memory-notes>"
    out.insert(1, line("user", inj if fmt == "claude" else [{"type": "text", "text": inj}]))
    out.insert(2, cc("user", "<system-reminder>SYSNOISE</system-reminder>", isMeta=True) if fmt == "claude"
               else oc("user", [{"type": "text", "text": "<system-reminder>SYSNOISE</system-reminder>"}]))
    return out


# (format, turns, [(query, text the captured line must hold)], planted secrets)
SCENARIOS = [
    ("claude", [("user", "Remember that the production database is on db-prod-3.internal, port 6432."),
                ("assistant", "Noted: production database db-prod-3.internal:6432."),
                ("user", "Here is the key for the deploy: sk-ant-api03-Zq8xLmN4pR7tV2wY9bC3dF6gH1jK5"),
                ("assistant", "I will not store that key; the deploy script now reads it from the environment.")],
     [("production database host port", "db-prod-3.internal")], ["sk-ant-api03-Zq8xLmN4pR7tV2wY9bC3dF6gH1jK5"]),
    ("claude", [("user", "I prefer pytest over unittest for new projects, and always use type hints."),
                ("assistant", "Understood, pytest and type hints from now on."),
                ("user", "The CI token is ghp_R2d2C3poBb8Ee1Ff4Gg7Hh0Ii3Jj6Kk9Ll2M"),
                ("assistant", "Fixed the workflow: the token is now a repository secret.")],
     [("pytest or unittest preference", "pytest"), ("type hints", "type hints")],
     ["ghp_R2d2C3poBb8Ee1Ff4Gg7Hh0Ii3Jj6Kk9Ll2M"]),
    ("claude", [("user", "记住：我们的新版官网定在十二月十五日上线。"),
                ("assistant", "好的，官网上线日期是十二月十五日。"),
                ("user", "服务器密码是 Hk!29xQz#77，先帮我登录看看。<private>我的工资是每月三万</private>"),
                ("assistant", "问题是 nginx 配置里的证书路径写错了，已修复。")],
     [("官网上线日期", "十二月十五日"), ("nginx 证书路径", "证书路径")], ["Hk!29xQz#77", "每月三万"]),
    ("claude", [("user", "We decided to move the blog from Netlify to Cloudflare Pages next week."),
                ("assistant", "The cause of the failed build was an old Hugo version; fixed by pinning 0.121."),
                ("user", "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoibWUifQ.sig123456789' "
                         "https://api.example.com/posts")],
     [("blog migration Cloudflare Pages", "Cloudflare Pages"), ("failed build Hugo version", "Hugo")],
     ["eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoibWUifQ.sig123456789"]),
    ("claude", [("user", "My daughter's piano lesson is every Thursday at 5pm with Ms. Okafor."),
                ("assistant", "Got it: Thursdays 17:00, Ms. Okafor."),
                ("user", "Connect to postgres://admin:Wint3rIsComing@10.0.0.5/shop and list the tables."),
                ("assistant", "Done: there are 14 tables; orders is the largest.")],
     [("piano lesson Thursday", "Okafor")], ["Wint3rIsComing"]),
    ("claude", [("user", "以后代码注释都用英文写，提交信息也用英文。"),
                ("assistant", "好的，注释和提交信息都用英文。"),
                ("user", "AWS 的 key 是 AKIAQ3EGRZ7YEXAMPLEX，secret 是 wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
                ("assistant", "已经改用 IAM 角色，不再需要这个 key。")],
     [("代码注释 英文", "注释")], ["AKIAQ3EGRZ7YEXAMPLEX", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
    ("openclaw", [("user", "Remember that my passport expires on 2027-03-02, renew it in January."),
                  ("assistant", "Noted: passport expiry 2027-03-02, reminder for January."),
                  ("user", "<private>My passport number is X99887766</private> Please keep that private."),
                  ("assistant", "I did not save the number.")],
     [("passport expiry date", "2027-03-02")], ["X99887766"]),
    ("openclaw", [("user", "记住我对花生过敏，推荐菜谱时不要有花生。"),
                  ("assistant", "好的，以后推荐的菜谱都不含花生。"),
                  ("user", "我的邮箱密码：Qw3rty!2026，帮我设置一下邮件转发。"),
                  ("assistant", "邮件转发已经设置好了，转发到工作邮箱。")],
     [("花生过敏", "花生"), ("邮件转发", "转发")], ["Qw3rty!2026"]),
    ("openclaw", [("user", "Our team standup moved to 9:30 every weekday, in the Lisbon room."),
                  ("assistant", "Standup: 9:30 weekdays, Lisbon room."),
                  ("user", "The Slack bot token is xoxb-2048-4096-AbCdEfGhIjKlMnOp, add it to the config."),
                  ("assistant", "Added to the config through an environment variable.")],
     [("standup time room", "Lisbon")], ["xoxb-2048-4096-AbCdEfGhIjKlMnOp"]),
    ("openclaw", [("user", "我喜欢靠窗的座位，订机票时记得选。"),
                  ("assistant", "好的，订票时优先靠窗座位。"),
                  ("user", "这是我的私钥：-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAz9Qx\n"
                           "-----END RSA PRIVATE KEY----- 帮我配置服务器。"),
                  ("assistant", "服务器已经配置好了，私钥没有保存到笔记里。")],
     [("靠窗 座位 机票", "靠窗")], ["MIIEpAIBAAKCAQEAz9Qx"]),
    ("openclaw", [("user", "Remember that the wifi at the cabin is called PineLodge5G."),
                  ("assistant", "Noted: cabin wifi PineLodge5G."),
                  ("user", "api_key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY for the maps widget"),
                  ("assistant", "The maps widget works now; the issue was a restricted referrer.")],
     [("cabin wifi name", "PineLodge5G"), ("maps widget issue", "referrer")],
     ["AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"]),
    ("openclaw", [("user", "我们决定下个季度把后端从 Flask 迁移到 FastAPI。"),
                  ("assistant", "好的，计划下季度迁移到 FastAPI。"),
                  ("user", "npm 的发布令牌是 npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8，先存一下。"),
                  ("assistant", "令牌不应该写进笔记，已放进 CI 的密钥里。")],
     [("后端迁移 FastAPI", "FastAPI")], ["npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"]),
]
NOISE_MARKERS = ("TOOLDUMP", "THINKNOISE", "INJECTEDNOISE", "SYSNOISE")


def hook_call(folder, payload, env):
    p = subprocess.run([SEARCH, "hook", "--dir", folder], input=json.dumps(payload).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=120)
    return p


def run_capture(env):
    found = total = 0
    secrets_found = secrets_total = 0
    dup_blocks = 0
    dumps = 0
    stdout_bytes = 0
    missed = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "mem")
        os.makedirs(os.path.join(folder, "memory"))
        with open(os.path.join(folder, "MEMORY.md"), "w", encoding="utf-8") as f:
            f.write("# MEMORY\n\n## About\n- Works on several small projects.\n")
        for k, (fmt, turns, facts, secrets) in enumerate(SCENARIOS):
            path = os.path.join(tmp, "t%02d.jsonl" % k)
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(transcript(fmt, turns, secrets)) + "\n")
            for event in ("PreCompact", "SessionEnd"):  # twice: one block must remain
                p = hook_call(folder, {"hook_event_name": event, "session_id": "bench-%02d" % k,
                                       "transcript_path": path, "cwd": "/home/me/proj"}, env)
                stdout_bytes += len(p.stdout)
        data = b""
        for dirpath, _, names in os.walk(folder):
            for n in names:
                with open(os.path.join(dirpath, n), "rb") as f:
                    data += f.read()
        store = memory_store.MemoryStore(folder, index_dir=os.path.join(folder, ".memory"))
        store.sync()
        for k, (fmt, turns, facts, secrets) in enumerate(SCENARIOS):
            for query, must in facts:
                total += 1
                hits = memory_search.search(store, query, limit=5)
                ok = any("-session-" in h.path and must in h.text for h in hits)
                found += ok
                if not ok:
                    missed.append(query)
            for s in secrets:
                secrets_total += 1
                secrets_found += s.encode("utf-8") in data
        store.close()
        for name in sorted(os.listdir(os.path.join(folder, "memory"))):
            with open(os.path.join(folder, "memory", name), encoding="utf-8") as f:
                text = f.read()
            if "-session-" in name:
                dup_blocks += text.count("<!-- session:") - 1
                bullets = [l for l in text.splitlines() if l.startswith("- ")]
                dup_blocks += len(bullets) - len(set(bullets))
        for marker in NOISE_MARKERS:
            dumps += data.count(marker.encode())
        example = sorted(n for n in os.listdir(os.path.join(folder, "memory")) if "-session-" in n)[2]
        with open(os.path.join(folder, "memory", example), encoding="utf-8") as f:
            sample = f.read()
    print("### Capture (%d transcripts: %d Claude Code, %d OpenClaw; captured twice each)\n" % (
        len(SCENARIOS), sum(s[0] == "claude" for s in SCENARIOS), sum(s[0] == "openclaw" for s in SCENARIOS)))
    print("| stated facts found by search | planted secrets absent | duplicate blocks or lines | "
          "noise in the folder (tool output, thinking, injected memory) | bytes on stdout |")
    print("|---:|---:|---:|---:|---:|")
    print("| %.2f (%d/%d) | %.2f (%d/%d) | %d | %d | %d |\n" % (
        found / float(total), found, total, 1 - secrets_found / float(secrets_total),
        secrets_total - secrets_found, secrets_total, dup_blocks, dumps, stdout_bytes))
    if missed:
        print("not found: %s\n" % "; ".join(missed))
    print("A captured block (transcript 3):\n\n```markdown\n%s```\n" % sample)


# --- cost ------------------------------------------------------------------------

QUERIES = ("camping trip with the kids", "adoption agency interview", "pottery class painting",
           "marathon training plan", "新的研究项目进展")


def timed(cmd, env, stdin=None):
    t = time.perf_counter()
    subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, timeout=300)
    return time.perf_counter() - t


def big_transcript(path, megabytes):
    lines, size, i = [], 0, 0
    while size < megabytes * 1048576:
        for l in (cc("user", "Please look at step %d of the migration and remember that batch %d uses the "
                              "eu-west bucket." % (i, i)),
                  cc("assistant", [{"type": "text", "text": "Step %d: the cause was a stale lock; fixed it by "
                                                            "removing the lock file." % i},
                                   {"type": "tool_use", "id": "t%d" % i, "name": "Bash",
                                    "input": {"command": "cat big.log"}}]),
                  cc("user", [{"type": "tool_result", "tool_use_id": "t%d" % i, "content": NOISE * 40}])):
            lines.append(l)
            size += len(l) + 1
        i += 1
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return size


LONG_PROMPT = ("Hello again. I've been thinking about the camping trip with the kids that we planned, and honestly "
               "the weather looks uncertain. Before I book anything else, what did we decide about the tents and "
               "the sleeping bags last time, and is there anything about the pottery class that clashes with it?")


def search_rows(folder, env, runs, before=None):
    """[(label, seconds)]: cold searches and prompt hooks (short questions, a
    long turn), interleaved run by run with the suite in `before` when given."""
    suites = [("", SEARCH)] + ([("before: ", os.path.join(before, "search.sh"))] if before else [])
    times = {}

    def add(label, t):
        times.setdefault(label, []).append(t)
    for r in range(runs):
        for tag, search in suites:
            for i, q in enumerate(QUERIES):
                add(tag + "cold search (search.sh QUERY --json)", timed([search, "--dir", folder, q, "--json"], env))
                for kind, prompt in (("", q), (", long turn", LONG_PROMPT)):
                    add(tag + "hook UserPromptSubmit" + kind, timed([search, "hook", "--dir", folder], env, json.dumps(
                        {"hook_event_name": "UserPromptSubmit", "session_id": "c%s%d-%d" % (tag, r, i),
                         "prompt": prompt, "transcript_path": "", "cwd": "/w"}).encode()))
    return list(times.items())


THIN_PROMPT = "Okay, and what did we settle on for that in the end?"  # alone it finds nothing: its conversation is read


def conversation_rows(folder, env, runs, tmp, megabytes=64):
    """[(label, seconds)]: the prompt hook in a session whose transcript is
    `megabytes` (its tail is what the recall reads), by default and with
    MEMORY_HOOK_CONTEXT=0, beside the same prompts with no transcript,
    interleaved run by run: a question, and a thin prompt for which the
    conversation is searched.  Each label is one session, its first call
    untimed (it reads the whole transcript once for the notes it holds, as a
    session's first prompt does; later prompts read on from there)."""
    path = os.path.join(tmp, "talk.jsonl")
    size = big_transcript(path, megabytes)
    big = "%.0f MB transcript" % (size / 1048576.0)
    settings = (("no transcript", "", None), (big + ", MEMORY_HOOK_CONTEXT=0", path, "0"), (big, path, None))
    times = {}
    for r in range(runs + 1):
        for k, (kind, prompt) in enumerate((("question", QUERIES[0]), ("thin prompt", THIN_PROMPT))):
            for n, (label, transcript, setting) in enumerate(settings):
                call_env = dict(env, **({"MEMORY_HOOK_CONTEXT": setting} if setting else {}))
                t = timed([SEARCH, "hook", "--dir", folder], call_env, json.dumps(
                    {"hook_event_name": "UserPromptSubmit", "session_id": "talk-%d-%d" % (k, n), "prompt": prompt,
                     "transcript_path": transcript, "cwd": "/w"}).encode())
                if r:
                    times.setdefault("hook UserPromptSubmit, %s, %s" % (kind, label), []).append(t)
    return list(times.items())


def run_cost(env, runs, data, before=None):
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "mem")
        files, size = corpus.generate(folder, 5, data)
        subprocess.run([SEARCH, "sync", "--dir", folder], stdout=subprocess.DEVNULL, env=env, timeout=600)
        rows = search_rows(folder, env, runs, before)
        cold = rows[0][1]
        start = [timed([SEARCH, "hook", "--dir", folder], env, json.dumps(
            {"hook_event_name": "SessionStart", "session_id": "s%d" % r, "source": "startup",
             "transcript_path": "", "cwd": "/w"}).encode()) for r in range(runs)]
        rows.append(("hook SessionStart", start))
        trivial = [timed([SEARCH, "hook", "--dir", folder], env, json.dumps(
            {"hook_event_name": "UserPromptSubmit", "session_id": "t%d" % r, "prompt": "ok",
             "transcript_path": "", "cwd": "/w"}).encode()) for r in range(runs)]
        rows.append(("hook UserPromptSubmit, trivial prompt", trivial))
        rows += conversation_rows(folder, env, runs, tmp)
        tpath = os.path.join(tmp, "big.jsonl")
        tsize = big_transcript(tpath, 10)
        pre = [timed([SEARCH, "hook", "--dir", folder], env, json.dumps(
            {"hook_event_name": "PreCompact", "session_id": "big-%d" % r, "trigger": "auto",
             "transcript_path": tpath, "cwd": "/w"}).encode()) for r in range(3)]
        rows.append(("hook PreCompact, %.1f MB transcript (first capture)" % (tsize / 1048576.0), pre))
        again = [timed([SEARCH, "hook", "--dir", folder], env, json.dumps(
            {"hook_event_name": "SessionEnd", "session_id": "big-0", "reason": "other",
             "transcript_path": tpath, "cwd": "/w"}).encode()) for r in range(3)]
        rows.append(("hook SessionEnd, same transcript again (nothing new)", again))
    colds = {name.split("cold search")[0]: statistics.median(ts) for name, ts in rows if "cold search" in name}
    print("### Cost (whole process, %s, folder %.1f MB in %d files)\n" % (env.get("MEMORY_PYTHON"),
                                                                       size / 1048576.0, files))
    print("| call | median | p90 | × cold search |")
    print("|---|---:|---:|---:|")
    for name, ts in rows:
        ts = sorted(ts)
        base = colds["before: " if name.startswith("before: ") else ""]  # the same suite's cold search
        print("| %s | %.0f ms | %.0f ms | %.2f |" % (name, statistics.median(ts) * 1000,
                                                    ts[int(0.9 * (len(ts) - 1))] * 1000, statistics.median(ts) / base))
    print()


def run_resident(env, runs, data):
    """Each hook of a one-turn session run cold (MEMORY_RESIDENT=0) and through
    the resident (doors/resident.py), interleaved, at 5 MB; then the prompt hook
    with the resident stopped (SIGSTOP: it takes nothing) and killed."""
    import signal
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "mem")
        corpus.generate(folder, 5, data)
        run_dir = os.path.join(tmp, "run")
        os.makedirs(run_dir, mode=0o700)
        env = dict(env, XDG_RUNTIME_DIR=run_dir)
        subprocess.run([SEARCH, "sync", "--dir", folder], stdout=subprocess.DEVNULL, env=env, timeout=600)
        events = (("SessionStart", {"source": "startup"}, []), ("UserPromptSubmit", {"prompt": QUERIES[0]}, []),
                  ("SessionEnd", {"reason": "other"}, ["--detach"]))
        times = {}

        def hook(mode, name, fields, args, session):
            payload = dict(fields, hook_event_name=name, session_id=session, transcript_path="", cwd="/w")
            t = timed([SEARCH, "hook", "--dir", folder] + args, dict(env, MEMORY_RESIDENT=mode),
                      json.dumps(payload).encode())
            times.setdefault((name, mode), []).append(t)
        hook("1", "UserPromptSubmit", {"prompt": "start it"}, [], "starter")
        time.sleep(2)
        for r in range(runs):
            for mode in ("0", "1") if r % 2 else ("1", "0"):
                for name, fields, args in events:
                    hook(mode, name, fields, args, "r%s-%d" % (mode, r))
        pid_files = [os.path.join(d, n) for d, _, ns in os.walk(run_dir) for n in ns if n.endswith(".pid")]
        pid = read_pid_file(pid_files[0])[0] if pid_files else None
        for label, sig in (("stopped", signal.SIGSTOP), ("killed", signal.SIGKILL)):
            if pid is None:
                break
            os.killpg(os.getpgid(pid), sig)
            time.sleep(0.2)
            for r in range(runs):  # the stopped or dead one, beside no resident at all
                hook("1", "UserPromptSubmit", {"prompt": QUERIES[1]}, [], "%s-%d" % (label, r))
                times.setdefault(label, []).append(times[("UserPromptSubmit", "1")].pop())
                hook("0", "UserPromptSubmit", {"prompt": QUERIES[1]}, [], "%s-cold-%d" % (label, r))
                times.setdefault(label + " cold", []).append(times[("UserPromptSubmit", "0")].pop())
            if sig == signal.SIGSTOP:
                os.killpg(os.getpgid(pid), signal.SIGKILL)
                os.killpg(os.getpgid(pid), signal.SIGCONT)
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    print("### The resident process (%s, 5 MB folder, %d runs, medians)\n" % (env.get("MEMORY_PYTHON"), runs))
    print("| hook | cold | resident | resident / cold |")
    print("|---|---:|---:|---:|")
    total = [0.0, 0.0]
    for name, _, _ in events:
        cold, warm = med[(name, "0")], med[(name, "1")]
        total[0] += cold
        total[1] += warm
        print("| %s | %.0f ms | %.0f ms | %.2f |" % (name, cold, warm, warm / cold))
    print("| a one-turn session's three hooks | %.0f ms | %.0f ms | %.2f |" % (total[0], total[1], total[1] / total[0]))
    for label in ("stopped", "killed"):
        if label in med:
            print("| UserPromptSubmit, the resident %s | %.0f ms | %.0f ms | %+.0f ms |" % (
                label, med[label + " cold"], med[label], med[label] - med[label + " cold"]))
    print()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--parts", default="recall,capture,cost")
    ap.add_argument("--data", default=quality.DEFAULT_DATA)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--before", help="another checkout of the suite whose searches and prompt hooks are timed "
                                     "beside this one's, interleaved (cost)")
    args = ap.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["MEMORY_PYTHON"] = os.environ.get("MEMORY_PYTHON") or "/usr/bin/python3"
    parts = args.parts.split(",")
    if "recall" in parts:
        run_recall(args.data)
    if "capture" in parts:
        run_capture(env)
    if "cost" in parts:
        run_cost(env, args.runs, args.data, args.before)
    if "resident" in parts:
        run_resident(env, args.runs, args.data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
