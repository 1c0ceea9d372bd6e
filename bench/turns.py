#!/usr/bin/env python3
"""What a Claude Code turn costs with the suite's hooks, measured with the real
client: one-turn `claude -p` sessions against tests/e2e/stubs/anthropic_stub.py,
the suite loaded as a plugin from ~/.claude/skills of a throwaway HOME, the
configurations below interleaved round by round, medians printed as a table.

  none        no suite
  plugin      the plugin with no hooks
  noop        its hooks replaced by `true`: Claude Code's own cost of running them
  alone       each hook in its own process (MEMORY_RESIDENT=0)
  resident    through the resident process (the default)
  sys         through the resident, MEMORY_PYTHON=/usr/bin/python3
  prompt-*    only the UserPromptSubmit hook (noop, alone, resident): a turn of a
              longer session, which pays no SessionStart or SessionEnd

A run counts only if the model's request carried what the hooks should have
sent (a brief and a recall; a recall alone for prompt-*); the others are listed.

Usage: python3 bench/turns.py [--claude PATH] [--rounds 20] [--configs none,noop,alone,resident]
(Claude Code from npm: npm install --prefix DIR @anthropic-ai/claude-code; default
$MEMORY_E2E_PREFIX/cc/node_modules/.bin/claude, else `claude` on the PATH.)
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
CONFIGS = ("none", "plugin", "noop", "alone", "resident", "sys", "prompt-noop", "prompt-alone", "prompt-resident")


def find_claude(given):
    prefix = os.environ.get("MEMORY_E2E_PREFIX")
    for path in (given, prefix and os.path.join(prefix, "cc", "node_modules", ".bin", "claude"),
                 shutil.which("claude")):
        if path and os.access(path, os.X_OK):
            return path
    sys.exit("turns: no Claude Code found (--claude PATH)")


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
        for groups in events.values():
            for group in groups:
                for hook in group["hooks"]:
                    hook["command"] = "true"
    with open(hooks_file, "w") as f:
        json.dump(hooks, f)
    if config.endswith("alone"):
        env["MEMORY_RESIDENT"] = "0"
    if config == "sys":
        env["MEMORY_PYTHON"] = "/usr/bin/python3"
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
    with open(log, "rb") as f:
        f.seek(before)
        text = f.read().decode("utf-8", "replace")
    return ms, (text.count("SessionStart hook additional context"), text.count("UserPromptSubmit hook additional context"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--claude")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    args = ap.parse_args(argv)
    claude = find_claude(args.claude)
    configs = args.configs.split(",")
    if "none" not in configs:
        configs.insert(0, "none")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_", "ANTHROPIC_", "CLAUDE"))}
    with tempfile.TemporaryDirectory(prefix="turns-") as world:
        mem, proj, log = os.path.join(world, "mem"), os.path.join(world, "proj"), os.path.join(world, "stub.log")
        os.makedirs(proj)
        subprocess.run(["sh", os.path.join(STUBS, "make_notes.sh"), mem], check=True, stdout=subprocess.DEVNULL)
        open(log, "w").close()
        port = 18000 + os.getpid() % 1000
        stub = subprocess.Popen([sys.executable, os.path.join(STUBS, "anthropic_stub.py"), str(port), log],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(1)
            common = dict(base, ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % port, ANTHROPIC_API_KEY="dummy",
                          DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1", DISABLE_ERROR_REPORTING="1",
                          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", MEMORY_DIR=mem)
            envs = {c: dict(common, **make_home(world, c)) for c in configs}
            for c in configs:  # a first turn each: indexes, bytecode, the resident's start
                for _ in range(2):
                    one_turn(claude, envs[c], log, proj)
            times, missed = {c: [] for c in configs}, {c: 0 for c in configs}
            for r in range(args.rounds):
                for c in configs[r % len(configs):] + configs[:r % len(configs)]:
                    ms, got = one_turn(claude, envs[c], log, proj)
                    if got != wanted_notes(c) and wanted_notes(c) != (0, 0):
                        missed[c] += 1
                        continue
                    times[c].append(ms)
        finally:
            stub.terminate()
            stub.wait()
            for c in configs:  # the residents go with their HOMEs; stop them now rather than in 5 s
                subprocess.run(["pkill", "-f", os.path.join(world, c, ".claude")], stderr=subprocess.DEVNULL)
    none = statistics.median(times["none"])
    print("### A Claude Code turn (%s, %d rounds, medians; load %.1f)\n" % (
        claude, args.rounds, os.getloadavg()[0]))
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
