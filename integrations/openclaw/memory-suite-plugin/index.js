// memory-suite for OpenClaw 2026.9: plain JavaScript, no dependencies, no build step.
// Before each prompt: the suite's brief (first prompt of a session) and recall, as prependContext.
// After each turn (agent_end) and on /new or /reset (before_reset): the conversation in
// event.messages captured into the memory folder.  Everything goes through `search.sh hook`
// (the suite's one entry point for hooks) and fails open: on any problem, nothing is added.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const stateDir = () => process.env.OPENCLAW_STATE_DIR || path.join(os.homedir(), ".openclaw");
const RECALL_MS = 10000;
const CAPTURE_MS = 60000;

// search.sh: the plugin's config, $MEMORY_SUITE_SEARCH, the suite this folder ships in, the skill installs
export function findSearch(config, workspace) {
  const candidates = [config.search, process.env.MEMORY_SUITE_SEARCH, path.resolve(here, "..", "..", "..", "search.sh"),
    workspace && path.join(workspace, "skills", "memory-search", "search.sh"),
    path.join(stateDir(), "workspace", "skills", "memory-search", "search.sh"),
    path.join(stateDir(), "skills", "memory-search", "search.sh")];
  return candidates.find((p) => typeof p === "string" && p && fs.existsSync(p));
}

// The memory folder on the command line: the config's, else MEMORY_DIR (the suite reads it), else the workspace
function dirArgs(config, workspace) {
  const dir = config.memoryDir || (process.env.MEMORY_DIR ? "" : workspace);
  return dir ? ["--dir", dir] : [];
}

// Run `search.sh hook ARGS` with the event JSON on stdin; its stdout, or "" on any failure.
export function runHook(search, args, payload, timeoutMs) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(search, ["hook", ...args], { stdio: ["pipe", "pipe", "ignore"], timeout: timeoutMs });
    } catch {
      return resolve("");
    }
    child.stdout.on("data", (chunk) => { out += chunk; });
    child.on("error", () => resolve(""));
    child.on("close", (code) => resolve(code === 0 ? out : ""));
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

// The conversation's last messages, which the recall reads when the prompt alone is thin (a bounded payload)
const RECENT_MESSAGES = 12;
function recentMessages(messages) {
  return Array.isArray(messages) ? messages.slice(-RECENT_MESSAGES) : undefined;
}

function contextOf(stdout) {
  try {
    const text = JSON.parse(stdout)?.hookSpecificOutput?.additionalContext;
    return typeof text === "string" ? text : "";
  } catch {
    return "";
  }
}

export function createPlugin(config = {}, logger = console) {
  // Sessions this gateway process has briefed, and the SessionStart source the next prompt of a
  // session sends when its context was emptied since: "compact" after a compaction, "clear" after
  // /new or /reset.  A session not seen yet sends "resume": the suite's own session state (beside
  // the index, so it outlives a gateway restart) says what it was sent, and it gets only the rest
  // (all of the brief, for a new session).
  const briefed = new Set();
  const emptied = new Map();
  let warned = false;
  const where = (ctx) => {
    const workspace = ctx?.workspaceDir;
    const search = findSearch(config, workspace);
    if (!search && !warned) {  // misinstalled: say it once, where the gateway logs
      warned = true;
      (typeof logger?.warn === "function" ? logger : console).warn("memory-suite: search.sh not found, so no memory is recalled or captured: " +
        "openclaw config set plugins.entries.memory-suite.config.search /path/to/memory-suite/search.sh");
    }
    return { workspace, search, args: dirArgs(config, workspace) };
  };
  const session = (ctx) => ctx?.sessionId || ctx?.sessionKey || "openclaw";

  async function beforePrompt(event, ctx) {
    try {
      const { workspace, search, args } = where(ctx);
      const prompt = event?.prompt;
      if (!search || typeof prompt !== "string") return undefined;
      const base = { session_id: session(ctx), cwd: workspace || process.cwd() };
      const parts = [];
      if (!briefed.has(base.session_id) || emptied.has(base.session_id)) {
        const source = emptied.get(base.session_id) || "resume";
        briefed.add(base.session_id);
        emptied.delete(base.session_id);
        parts.push(contextOf(await runHook(search, ["session-start", ...args],
          { ...base, hook_event_name: "SessionStart", source }, RECALL_MS)));
      }
      parts.push(contextOf(await runHook(search, ["prompt", ...args],
        { ...base, hook_event_name: "UserPromptSubmit", prompt, messages: recentMessages(event?.messages) }, RECALL_MS)));
      const text = parts.filter(Boolean).join("\n\n");
      return text ? { prependContext: text } : undefined;
    } catch {
      return undefined;
    }
  }

  async function capture(event, ctx, name) {
    try {
      const { workspace, search, args } = where(ctx);
      const messages = event?.messages;
      if (!search || !Array.isArray(messages) || messages.length === 0) return;
      if (name === "SessionEnd") emptied.set(session(ctx), "clear");
      // after each turn: captured in a detached process, so the turn does not wait for it
      await runHook(search, [...(name === "Stop" ? ["--stop", "--detach"] : []), ...args],
        { hook_event_name: name, session_id: session(ctx), cwd: workspace || process.cwd(), messages }, CAPTURE_MS);
    } catch {
      // fail open: the suite's hooks.log has the details
    }
  }

  // a compaction drops the notes from the context: the next prompt brings the brief again
  function compacted(ctx) {
    emptied.set(session(ctx), "compact");
  }

  return {
    id: "memory-suite",
    name: "Memory Suite",
    description: "Local Markdown memory: brief and recall before each prompt, capture after each turn.",
    register(api) {
      api.on("before_prompt_build", beforePrompt);
      api.on("agent_end", (event, ctx) => capture(event, ctx, "Stop"));
      api.on("before_reset", (event, ctx) => capture(event, ctx, "SessionEnd"));
      api.on("before_compaction", (event, ctx) => compacted(ctx));
    },
    beforePrompt,
    capture,
    compacted,
  };
}

const plugin = createPlugin();
export default {
  id: plugin.id,
  name: plugin.name,
  description: plugin.description,
  register(api) {
    const live = createPlugin(api?.pluginConfig || {}, api?.logger);
    live.register(api);
  },
};
