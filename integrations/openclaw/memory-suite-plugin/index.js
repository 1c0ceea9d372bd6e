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

export function createPlugin(config = {}) {
  const briefed = new Set();  // sessions that had their brief (the gateway is one long-lived process)
  const where = (ctx) => {
    const workspace = ctx?.workspaceDir;
    return { workspace, search: findSearch(config, workspace), args: dirArgs(config, workspace) };
  };
  const session = (ctx) => ctx?.sessionId || ctx?.sessionKey || "openclaw";

  async function beforePrompt(event, ctx) {
    try {
      const { workspace, search, args } = where(ctx);
      const prompt = event?.prompt;
      if (!search || typeof prompt !== "string") return undefined;
      const base = { session_id: session(ctx), cwd: workspace || process.cwd() };
      const parts = [];
      if (!briefed.has(base.session_id)) {
        briefed.add(base.session_id);
        parts.push(contextOf(await runHook(search, ["session-start", ...args],
          { ...base, hook_event_name: "SessionStart", source: "startup" }, RECALL_MS)));
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
      await runHook(search, [...(name === "Stop" ? ["--stop"] : []), ...args],
        { hook_event_name: name, session_id: session(ctx), cwd: workspace || process.cwd(), messages }, CAPTURE_MS);
    } catch {
      // fail open: the suite's hooks.log has the details
    }
  }

  return {
    id: "memory-suite",
    name: "Memory Suite",
    description: "Local Markdown memory: brief and recall before each prompt, capture after each turn.",
    register(api) {
      api.on("before_prompt_build", beforePrompt);
      api.on("agent_end", (event, ctx) => capture(event, ctx, "Stop"));
      api.on("before_reset", (event, ctx) => capture(event, ctx, "SessionEnd"));
    },
    beforePrompt,
    capture,
  };
}

const plugin = createPlugin();
export default {
  id: plugin.id,
  name: plugin.name,
  description: plugin.description,
  register(api) {
    const live = createPlugin(api?.pluginConfig || {});
    live.register(api);
  },
};
