// memory-suite: run `search.sh hook` (capture) on /new, /reset and before compaction.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const stateDir = process.env.OPENCLAW_STATE_DIR || path.join(os.homedir(), ".openclaw");

// search.sh: $MEMORY_SUITE_SEARCH, else the suite this folder ships in, else the skill installs
function findSearch(workspace) {
  const candidates = [process.env.MEMORY_SUITE_SEARCH, path.resolve(here, "..", "..", "..", "search.sh"),
    workspace && path.join(workspace, "skills", "memory-search", "search.sh"),
    path.join(stateDir, "workspace", "skills", "memory-search", "search.sh"),
    path.join(stateDir, "skills", "memory-search", "search.sh")];
  return candidates.find((p) => p && fs.existsSync(p));
}
const EVENTS = { "command:new": "SessionEnd", "command:reset": "SessionEnd", "session:compact:before": "PreCompact" };

function transcriptOf(event, entry) {
  const ctx = event.context || {};
  const agent = (/^agent:([^:]+):/.exec(event.sessionKey || "") || [])[1] || ctx.agentId || "main";
  const id = entry.sessionId || ctx.sessionId;
  const candidates = [ctx.sessionFile, entry.sessionFile,
    id && path.join(stateDir, "agents", agent, "sessions", `${id}.jsonl`)];
  return candidates.find((p) => typeof p === "string" && p && fs.existsSync(p)) || candidates.find(Boolean) || null;
}

export default async function handler(event) {
  const name = EVENTS[`${event.type}:${event.action}`];
  if (!name) return;
  try {
    const ctx = event.context || {};
    const entry = (event.type === "command" ? ctx.previousSessionEntry || ctx.sessionEntry : ctx.sessionEntry) || {};
    const workspace = ctx.workspaceDir || ctx.cfg?.agents?.defaults?.workspace;
    const payload = { hook_event_name: name, session_id: entry.sessionId || ctx.sessionId || event.sessionKey,
      transcript_path: transcriptOf(event, entry), cwd: workspace || process.cwd(), openclaw_event: `${event.type}:${event.action}` };
    const search = findSearch(workspace);
    if (!search) return console.warn("[memory-suite] search.sh not found: set MEMORY_SUITE_SEARCH");
    const args = ["hook"].concat(workspace && !process.env.MEMORY_DIR ? ["--dir", workspace] : []);
    await new Promise((resolve) => {
      const child = spawn(search, args, { stdio: ["pipe", "ignore", "ignore"], timeout: 60000 });
      child.on("error", resolve);
      child.on("close", resolve);
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify(payload));
    });
  } catch (error) {
    console.warn(`[memory-suite] capture failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
