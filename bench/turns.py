#!/usr/bin/env python3
"""What a turn costs with the suite's hooks, measured with the real client,
the configurations below interleaved round by round, medians printed as a table.

Claude Code (the default): one-turn `claude -p` sessions against
tests/e2e/stubs/anthropic_stub.py, the suite loaded as a plugin from
~/.claude/skills of a throwaway HOME.

  none        no suite
  plugin      the plugin with no hooks
  noop        its hooks replaced by `true`: Claude Code's own cost of running them
  alone       each hook in its own process (MEMORY_RESIDENT=0)
  resident    through the resident process (the default)
  sys         through the resident, MEMORY_PYTHON=/usr/bin/python3
  prompt-*    only the UserPromptSubmit hook (noop, alone, resident): a turn of a
              longer session, which pays no SessionStart or SessionEnd

Codex (--client codex): `codex exec` against tests/e2e/stubs/openai_stub.py with
integrations/codex/hooks.json in a throwaway CODEX_HOME (trust bypassed), each
round a one-turn session and then a second turn of it (`exec resume`); the
configurations none (no hooks.json), noop, alone, resident and sys as above.

A run counts only if the model's request carried what the hooks should have
sent (a brief and a recall; a recall alone for prompt-* and Codex); the others
are listed.

Usage: python3 bench/turns.py [--client claude|codex] [--path CLIENT] [--rounds 20]
       [--configs none,noop,alone,resident]
(from npm: npm install --prefix DIR @anthropic-ai/claude-code, or @openai/codex;
default $MEMORY_E2E_PREFIX/cc/node_modules/.bin/claude or .../codex/node_modules/.bin/codex,
else the client on the PATH.)
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
SUITE = os.path.dirname(HERE)
STUBS = os.path.join(SUITE, "tests", "e2e", "stubs")
PROMPT = "What was my passport pick-up slip number?"
PROMPT2 = "And which car park space is mine?"
CONFIGS = ("none", "plugin", "noop", "alone", "resident", "sys", "prompt-noop", "prompt-alone", "prompt-resident")
CODEX_CONFIGS = ("none", "noop", "alone", "resident", "sys")
NPM_PATHS = {"claude": ("cc", "claude"), "codex": ("codex", "codex")}


def find_client(client, given):
    prefix = os.environ.get("MEMORY_E2E_PREFIX")
    folder, name = NPM_PATHS[client]
    for path in (given, prefix and os.path.join(prefix, folder, "node_modules", ".bin", name), shutil.which(name)):
        if path and os.access(path, os.X_OK):
            return path
    sys.exit("turns: no %s found (--path CLIENT)" % name)


def suite_env(config):
    """What the suite's configurations set in a hook's environment."""
    if config.endswith("alone"):
        return {"MEMORY_RESIDENT": "0"}
    return {"MEMORY_PYTHON": "/usr/bin/python3"} if config == "sys" else {}


def make_home(world, config):
    """A HOME with the plugin as this configuration wants it; its environment additions."""
    home = os.path.join(world, config)
    os.makedirs(os.path.join(home, ".claude"))
    env = {"HOME": home, "XDG_RUNTIME_DIR": os.path.join(home, "run")}
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700)
    if config == "none":
        return env
    plugin = os.path.join(home, ".claude", "skills", "memory-suite")
    files = subprocess.run(["git", "-C", SUITE, "ls-files", "-z"], capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        if os.path.isfile(os.path.join(SUITE, rel)):
            os.makedirs(os.path.dirname(os.path.join(plugin, rel)), exist_ok=True)
            shutil.copy2(os.path.join(SUITE, rel), os.path.join(plugin, rel))
    hooks_file = os.path.join(plugin, "hooks", "hooks.json")
    with open(hooks_file) as f:
        hooks = json.load(f)
    events = hooks["hooks"]
    if config == "plugin":
        events.clear()
    if config.startswith("prompt-"):
        for name in list(events):
            if name != "UserPromptSubmit":
                del events[name]
    if config.endswith("noop"):
        make_noop(events)
    with open(hooks_file, "w") as f:
        json.dump(hooks, f)
    env.update(suite_env(config))
    return env


def make_noop(events):
    """Every hook's command replaced by `true`: what the client's running of them costs."""
    for groups in events.values():
        for group in groups:
            for hook in group["hooks"]:
                hook["command"] = "true"


def make_codex_home(world, config, mem, port):
    """A HOME and CODEX_HOME with the stub as the model and the suite's hooks as
    this configuration wants them; its environment additions."""
    home = os.path.join(world, config)
    codex_home = os.path.join(home, ".codex")
    os.makedirs(codex_home)
    env = {"HOME": home, "CODEX_HOME": codex_home, "XDG_RUNTIME_DIR": os.path.join(home, "run"),
           "STUB_API_KEY": "dummy"}
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700)
    with open(os.path.join(STUBS, "codex-config.toml")) as f:  # the stub as the model
        toml = f.read().replace("PORT", str(port))
    with open(os.path.join(codex_home, "config.toml"), "w") as f:
        f.write(toml)
    if config != "none":
        with open(os.path.join(SUITE, "integrations", "codex", "hooks.json"), encoding="utf-8") as f:
            hooks = json.loads(f.read().replace("/path/to/memory-suite", SUITE).replace("/path/to/memory", mem))
        if config == "noop":
            make_noop(hooks["hooks"])
        with open(os.path.join(codex_home, "hooks.json"), "w") as f:
            json.dump(hooks, f)
    env.update(suite_env(config))
    return env


def wanted_notes(config):
    """(briefs, recalls) a request must carry for a run to count."""
    if config in ("none", "plugin") or config.endswith("noop"):
        return 0, 0
    return (0, 1) if config.startswith("prompt-") else (1, 1)


def one_turn(claude, env, log, proj):
    before = os.path.getsize(log)
    t = time.perf_counter()
    subprocess.run([claude, "-p", PROMPT], cwd=proj, env=env, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    ms = (time.perf_counter() - t) * 1000
    text = logged_since(log, before)
    return ms, (text.count("SessionStart hook additional context"), text.count("UserPromptSubmit hook additional context"))


def codex_turn(codex, env, log, proj, session=None):
    """(ms, recalled, session id) of one `codex exec` turn, a new session or a
    second turn of `session`."""
    before = os.path.getsize(log)
    tail = ["resume", session, PROMPT2] if session else [PROMPT]
    t = time.perf_counter()
    p = subprocess.run([codex, "exec", "--dangerously-bypass-hook-trust"] + tail, cwd=proj, env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    ms = (time.perf_counter() - t) * 1000
    ids = [line.split()[-1] for line in p.stderr.decode("utf-8", "replace").splitlines()
           if line.startswith("session id:")]
    # the last request of the turn: the recall sits in the user's message of this turn
    last = logged_since(log, before).strip().rsplit("\n", 1)[-1]
    return ms, "## Memories for" in last, (ids or [session])[0]


def logged_since(log, offset):
    with open(log, "rb") as f:
        f.seek(offset)
        return f.read().decode("utf-8", "replace")


def start_stub(script, log):
    port = 18000 + os.getpid() % 1000
    stub = subprocess.Popen([sys.executable, os.path.join(STUBS, script), str(port), log],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    return stub, port


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--client", choices=("claude", "codex"), default="claude")
    ap.add_argument("--path", "--claude", dest="path", help="the client's executable")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--configs")
    args = ap.parse_args(argv)
    path = find_client(args.client, args.path)
    configs = (args.configs or ",".join(CONFIGS if args.client == "claude" else CODEX_CONFIGS)).split(",")
    if "none" not in configs:
        configs.insert(0, "none")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_", "ANTHROPIC_", "CLAUDE", "CODEX_"))}
    with tempfile.TemporaryDirectory(prefix="turns-") as world:
        mem, proj, log = os.path.join(world, "mem"), os.path.join(world, "proj"), os.path.join(world, "stub.log")
        os.makedirs(proj)
        subprocess.run(["sh", os.path.join(STUBS, "make_notes.sh"), mem], check=True, stdout=subprocess.DEVNULL)
        open(log, "w").close()
        measure = measure_claude if args.client == "claude" else measure_codex
        try:
            tables = measure(path, configs, args.rounds, dict(world=world, mem=mem, proj=proj, log=log, base=base))
        finally:
            for c in configs:  # the residents go with their HOMEs; stop them now rather than in 5 s
                subprocess.run(["pkill", "-f", os.path.join(world, c, ".")], stderr=subprocess.DEVNULL)
    for title, (times, missed) in tables:
        print_table("%s (%s, %d rounds, medians; load %.1f)" % (title, path, args.rounds, os.getloadavg()[0]),
                    configs, times, missed)
    return 0


def measure_claude(claude, configs, rounds, w):
    stub, port = start_stub("anthropic_stub.py", w["log"])
    try:
        common = dict(w["base"], MEMORY_DIR=w["mem"])
        with open(os.path.join(STUBS, "claude-env.json")) as f:  # the stub as the model, kept quiet
            common.update((k, v.replace("PORT", str(port))) for k, v in json.load(f).items())
        envs = {c: dict(common, **make_home(w["world"], c)) for c in configs}
        for c in configs:  # a first turn each: indexes, bytecode, the resident's start
            for _ in range(2):
                one_turn(claude, envs[c], w["log"], w["proj"])
        times, missed = {c: [] for c in configs}, {c: 0 for c in configs}
        for r in range(rounds):
            for c in configs[r % len(configs):] + configs[:r % len(configs)]:
                ms, got = one_turn(claude, envs[c], w["log"], w["proj"])
                if got != wanted_notes(c) and wanted_notes(c) != (0, 0):
                    missed[c] += 1
                    continue
                times[c].append(ms)
    finally:
        stub.terminate()
        stub.wait()
    return [("A Claude Code turn", (times, missed))]


def measure_codex(codex, configs, rounds, w):
    stub, port = start_stub("openai_stub.py", w["log"])
    try:
        subprocess.run(["git", "init", "-q", w["proj"]], check=True)
        common = dict(w["base"], PATH=os.path.dirname(codex) + os.pathsep + w["base"].get("PATH", ""))
        envs = {c: dict(common, **make_codex_home(w["world"], c, w["mem"], port)) for c in configs}
        for c in configs:  # a first turn each: indexes, bytecode, the resident's start
            codex_turn(codex, envs[c], w["log"], w["proj"])
        kinds = ("A one-turn `codex exec`", "A second turn (`codex exec resume`)")
        times = [{c: [] for c in configs} for _ in kinds]
        missed = [{c: 0 for c in configs} for _ in kinds]
        for r in range(rounds):
            order = configs[r % len(configs):] + configs[:r % len(configs)]
            sessions = {}
            for n in range(len(kinds)):
                for c in order:
                    ms, recalled, sessions[c] = codex_turn(codex, envs[c], w["log"], w["proj"], sessions.get(c))
                    time.sleep(1)  # the detached capture ends; a user does not type at once
                    if recalled != (c not in ("none", "noop")):
                        missed[n][c] += 1
                        continue
                    times[n][c].append(ms)
    finally:
        stub.terminate()
        stub.wait()
    return [(kind, (t, m)) for kind, t, m in zip(kinds, times, missed)]


def print_table(title, configs, times, missed):
    none = statistics.median(times["none"]) if times["none"] else float("nan")
    print("### %s\n" % title)
    print("| configuration | turn | added | p25–p75 | runs | not counted |")
    print("|---|---:|---:|---:|---:|---:|")
    for c in configs:
        ts = sorted(times[c])
        if not ts:
            print("| %s | | | | 0 | %d |" % (c, missed[c]))
            continue
        med = statistics.median(ts)
        print("| %s | %.0f ms | %+.0f ms | %.0f–%.0f | %d | %d |" % (
            c, med, med - none, ts[len(ts) // 4], ts[(3 * len(ts)) // 4], len(ts), missed[c]))
    print()


if __name__ == "__main__":
    sys.exit(main())
