// `make test-mcp-npm`: drives `somni-sidecar mcp` with an independent MCP client from npm (the
// TypeScript SDK's Client + StdioClientTransport, installed by scripts/mcp-npm/setup.sh) and checks it
// against the sidecar's own JSON-RPC path on identical data:
//   - the tool list: the JSON-RPC work tools plus remember, dream_status, dream_now; each work tool's
//     inputSchema and description equal to `tools.list`'s parameters and description;
//   - every work tool called with the same arguments on two identical seeded data dirs (one served over
//     MCP, one over JSON-RPC `tools.call`): the same text, the same failures;
//   - arguments as clients send them (omitted, null, junk, out of range) and bad ones: same text or error;
//   - remember (lands in the data dir with its source client named, a secret redacted), dream_status;
//   - dream_now without sampling and with sampling but no tool use (says what it needs), and with sampling
//     with tools: a scripted three-turn dream over sampling/createMessage (tool_use → tool_result);
//   - resources (about_me, user profiles, the user template, open intentions) listed and read; the
//     somni-context prompt, with and without its arguments, carrying prompt.build's three sections.
// Usage: node run.mjs <client-dir>   (client-dir holds node_modules/@modelcontextprotocol/sdk)
// Env: SOMNI_SIDECAR_BIN (default bin/somni-sidecar), MCP_NPM_VERBOSE=1 prints every text compared.
// Last line: "mcp-npm: N passed, N failed"; exit status 1 when anything failed.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../..");
const BIN = process.env.SOMNI_SIDECAR_BIN || path.join(ROOT, "bin/somni-sidecar");
const VERBOSE = process.env.MCP_NPM_VERBOSE === "1";
const CLIENT_DIR = process.argv[2] || path.join(ROOT, ".cache/mcp-client");
const CLIENT_NAME = "somni-mcp-npm-test";
const CALL_TIMEOUT_MS = 10_000;
const TOTAL_TIMEOUT_MS = 30_000;

const requireSdk = createRequire(path.join(CLIENT_DIR, "package.json"));
const { Client } = requireSdk("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = requireSdk("@modelcontextprotocol/sdk/client/stdio.js");
const { CreateMessageRequestSchema } = requireSdk("@modelcontextprotocol/sdk/types.js");
const SDK_VERSION = JSON.parse(fs.readFileSync(path.join(CLIENT_DIR, "node_modules/@modelcontextprotocol/sdk/package.json"), "utf8")).version;

// ---- results -------------------------------------------------------------------------------------
let passed = 0;
let failed = 0;
const t0 = Date.now();
function ok(name) {
  passed++;
  console.log(`ok   ${name}`);
}
function fail(name, why) {
  failed++;
  console.log(`FAIL ${name}\n     ${String(why).replace(/\n/g, "\n     ")}`);
}
function check(name, cond, why) {
  cond ? ok(name) : fail(name, why);
  return cond;
}
function summary() {
  console.log(`[mcp-npm] ${((Date.now() - t0) / 1000).toFixed(1)}s, @modelcontextprotocol/sdk ${SDK_VERSION}`);
  console.log(`mcp-npm: ${passed} passed, ${failed} failed`);
}
const clip = (s, n = 400) => (s.length > n ? s.slice(0, n) + `… (${s.length} chars)` : s);

// Key-order-insensitive JSON equality (schemas are objects; property order is not semantic in JSON).
function canon(v) {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])]));
  }
  return v;
}
const same = (a, b) => JSON.stringify(canon(a)) === JSON.stringify(canon(b));
// A line diff of two texts, for a failure message.
function diff(a, b) {
  const x = a.split("\n");
  const y = b.split("\n");
  const out = [];
  for (let i = 0; i < Math.max(x.length, y.length) && out.length < 12; i++) {
    if (x[i] !== y[i]) out.push(`line ${i + 1}:\n  json-rpc: ${JSON.stringify(x[i])}\n  mcp:      ${JSON.stringify(y[i])}`);
  }
  return out.join("\n");
}

// ---- seeded data dirs ----------------------------------------------------------------------------
const SEED = {
  "memory/about_me.md": `---
name: about_me
type: identity
has_data: true
updated: 2026-11-20
---

I am the team's coding assistant for the Vega project. I keep answers short.
`,
  "memory/users/default/about_user.md": `---
user_id: default
name: Robin
type: identity
updated: 2026-11-29
---

Robin prefers tabs over spaces and reviews Go code in English.
`,
  "memory/users/sam/about_user.md": `---
user_id: sam
name: Sam
type: identity
updated: 2026-11-28
---

Sam reviews infra changes and is on call for the Vega gateway.
`,
  "memory/knowledge/vega-deploy/SKILL.md": `---
name: vega-deploy
description: "Vega deploys go through the blue-green pipeline; never push to prod directly"
type: decision
stability: 1
score: 0.8
created: 2026-10-01
last_used: 2026-11-20
last_decay: 2026-11-25
---

Deploy Vega with \`make deploy-bluegreen\`. The direct \`kubectl apply\` path was removed after the
October outage.
`,
  "memory/knowledge/docker-buildkit/SKILL.md": `---
name: docker-buildkit
description: "Docker cache mounts on the CI runner need BuildKit; set DOCKER_BUILDKIT=1"
type: pitfall
stability: 2
score: 0.7
created: 2026-10-02
last_used: 2026-11-21
last_decay: 2026-11-25
---

- Symptom: \`the --mount option requires BuildKit\`
- Fix: export DOCKER_BUILDKIT=1 before \`docker build\`.
`,
  "memory/episodes/2026-11-20_001/SKILL.md": `---
name: 2026-11-20_001
description: Debugged the Vega CI docker build cache failure with the user
type: episode
stability: 0
score: 0.6
created: 2026-11-20
last_used: 2026-11-20
last_decay: 2026-11-20
---

- when: 2026-11-20T14:03:11
- actors: user, agent
- outcome: success
- objects: CI runner, Dockerfile
- tags: docker, ci
- salience: mid
- source: 2026-11-20_001
`,
  "memory/intentions/pi-20261129-001/INTENT.md": `---
name: pi-20261129-001
description: Ask Liu Chao about the Vega gateway config review
type: intention
score: 1.0
---

- cue: gateway, 刘超
- priority: mid
- created: 2026-11-29
`,
};
function seed() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "somni-mcp-npm-"));
  for (const [rel, text] of Object.entries(SEED)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}
// Every regular file under dir (path relative to dir → text), skipping the derived index.
function readTree(dir) {
  const out = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && !e.name.startsWith("index.sqlite")) out[path.relative(dir, p)] = fs.readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
}

// ---- the JSON-RPC path: ndjson over the sidecar's stdio --------------------------------------------
function startRpc(dataDir) {
  const child = spawn(BIN, ["--data-dir", dataDir, "--embed", "off", "--log-level", "error"], { stdio: ["pipe", "pipe", "pipe"] });
  let buf = "";
  let stderr = "";
  let nextId = 1;
  const waiting = new Map();
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      const w = waiting.get(msg.id);
      if (w) {
        waiting.delete(msg.id);
        clearTimeout(w.timer);
        w.resolve(msg);
      }
    }
  });
  child.stderr.on("data", (c) => (stderr += c));
  const exited = new Promise((r) => child.on("exit", (code) => r(code)));
  // One request at a time: the sidecar serves requests concurrently, and the comparison needs order.
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`json-rpc ${method}: no answer in ${CALL_TIMEOUT_MS} ms; stderr: ${clip(stderr)}`));
      }, CALL_TIMEOUT_MS);
      waiting.set(id, { resolve, timer });
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  return {
    request,
    stderr: () => stderr,
    async close() {
      try {
        await request("shutdown", {});
      } catch {}
      child.stdin.end();
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 3000))]);
      if (code === "timeout") child.kill("SIGKILL");
      return code;
    },
  };
}

// ---- the MCP path ---------------------------------------------------------------------------------
async function startMcp(dataDir, { sampling, onSample } = {}) {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp", "--data-dir", dataDir, "--embed", "off"],
    env: { ...process.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c) => (stderr += c));
  const client = new Client({ name: CLIENT_NAME, version: "1.0.0" }, { capabilities: sampling ? { sampling } : {} });
  if (onSample) client.setRequestHandler(CreateMessageRequestSchema, onSample);
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  return { client, transport, stderr: () => stderr };
}
const mcpText = (res) =>
  (res.content || [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");

// Calls one tool on both paths; returns {rpc: {text}|{error}, mcp: {text}|{error}}.
async function callBoth(rpc, mcp, name, args) {
  const r = await rpc.request("tools.call", { name, args });
  const rpcOut = r.error ? { error: r.error.message } : { text: r.result.result };
  let mcpOut;
  try {
    const res = await mcp.client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
    mcpOut = res.isError ? { error: mcpText(res) } : { text: mcpText(res) };
  } catch (e) {
    mcpOut = { error: `protocol error: ${e.message}`, protocol: true };
  }
  return { rpc: rpcOut, mcp: mcpOut };
}

// The data dirs differ only in their path: take it out of both texts.
function norm(s, dir) {
  return s.split(dir).join("<DATA>");
}

async function main() {
  if (!fs.existsSync(BIN)) {
    fail("sidecar binary", `${BIN} missing: run 'make build' first`);
    return;
  }
  const rpcDir = seed();
  const mcpDir = seed();
  const rpc = startRpc(rpcDir);
  let mcp;
  try {
    mcp = await startMcp(mcpDir);
    ok(`initialize (server ${JSON.stringify(mcp.client.getServerVersion())})`);
  } catch (e) {
    fail("initialize", e.message);
    await rpc.close();
    return;
  }
  try {
    await run(rpc, mcp, rpcDir, mcpDir);
  } finally {
    await mcp.client.close().catch(() => {});
    const code = await rpc.close();
    check("json-rpc sidecar exits 0", code === 0, `exit ${code}; stderr: ${clip(rpc.stderr())}`);
    checkStderr("mcp server", mcp.stderr());
  }
  try {
    await samplingDream(mcpDir);
  } finally {
    for (const d of [rpcDir, mcpDir]) fs.rmSync(d, { recursive: true, force: true });
  }
}

function checkStderr(label, text) {
  const bad = text.split("\n").filter((l) => / (ERROR|PANIC|FATAL) /.test(l) || /^panic:/.test(l));
  check(`${label} stderr has no ERROR/panic`, bad.length === 0, bad.slice(0, 5).join("\n"));
  if (bad.length) console.log(`[mcp-npm] ${label} stderr (tail):\n${text.slice(-2000)}`);
}

// More servers on the same (now closed) data dir, for clients that offer sampling. One offers sampling
// without tool use: dream_now must say the dreamer needs tool calls. One offers sampling with tools
// (MCP 2025-11-25): dream_now runs the dreamer with this client's "model", here a script of three turns —
// read the pending log (the remembered note), mark it processed, finish — so the tool_use/tool_result
// round trip goes through the TypeScript SDK's own validation of both sides.
const blocks = (m) => (Array.isArray(m.content) ? m.content : [m.content]);
async function samplingDream(dataDir) {
  // -- sampling without tools
  {
    let mcp;
    const samples = [];
    try {
      mcp = await startMcp(dataDir, {
        sampling: {},
        onSample: async (req) => {
          samples.push(req.params);
          return { role: "assistant", content: { type: "text", text: "ok" }, model: "mcp-npm-canned", stopReason: "endTurn" };
        },
      });
      const res = await mcp.client.callTool({ name: "dream_now", arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS });
      const text = mcpText(res);
      check(
        "dream_now, sampling without tools: no createMessage, says it needs tool use or --llm openai",
        samples.length === 0 && /tool/i.test(text) && /--llm/.test(text),
        `${samples.length} createMessage requests; ${JSON.stringify(res)}`,
      );
    } catch (e) {
      fail("dream_now, sampling without tools", e.message);
    } finally {
      await mcp?.client.close().catch(() => {});
      if (mcp) checkStderr("mcp server (sampling, no tools)", mcp.stderr());
    }
  }
  // -- sampling with tools: a scripted dream
  const samples = [];
  let logPath;
  let mcp;
  const script = async (req) => {
    const p = req.params;
    samples.push(p);
    const n = samples.length;
    const reply = (content, stopReason) => ({ role: "assistant", model: "mcp-npm-scripted", stopReason, content });
    if (n === 1) {
      const all = JSON.stringify(p.messages) + (p.systemPrompt || "");
      logPath = (all.match(/[^\s"'`]*session-log\/[^\s"'`)\\,;]+\.md/) || [])[0];
      if (!logPath) return reply([{ type: "text", text: "No pending log named; nothing to do." }], "endTurn");
      return reply([{ type: "tool_use", id: "t1", name: "read_session_log", input: { path: logPath } }], "toolUse");
    }
    if (n === 2) return reply([{ type: "text", text: "Reading it." }, { type: "tool_use", id: "t2", name: "mark_log_processed", input: { path: logPath } }], "toolUse");
    return reply([{ type: "text", text: "Dream done: the log is processed." }], "endTurn");
  };
  try {
    mcp = await startMcp(dataDir, { sampling: { tools: {} }, onSample: script });
    const res = await mcp.client.callTool({ name: "dream_now", arguments: {} }, undefined, { timeout: 20_000 });
    const text = mcpText(res);
    if (VERBOSE) console.log(`---- dream_now with sampling+tools\n${JSON.stringify(res)}\n${JSON.stringify(samples).slice(0, 3000)}`);
    check("dream_now, sampling with tools: asks this client's model (sampling/createMessage)", samples.length > 0, `no createMessage request; dream_now answered ${JSON.stringify(res)}`);
    if (samples.length) {
      const first = samples[0];
      const names = (first.tools || []).map((t) => t.name);
      check(
        "the dream's createMessage offers the dreamer's tools with object schemas",
        names.includes("read_session_log") && names.includes("mark_log_processed") && first.tools.every((t) => t.inputSchema?.type === "object"),
        `tools: ${names.join(", ")}`,
      );
      check("the dream's first createMessage names the pending log", !!logPath, clip(JSON.stringify(first), 1500));
    }
    if (samples.length >= 2) {
      const last = samples[1].messages.at(-1);
      const result = blocks(last).find((b) => b.type === "tool_result");
      const rtext = JSON.stringify(result || {});
      check("turn 2 answers the tool_use with a tool_result for t1", last.role === "user" && result?.toolUseId === "t1", JSON.stringify(last).slice(0, 800));
      check("read_session_log's result holds the remembered note", rtext.includes("eu-north-1"), clip(rtext, 800));
      check("read_session_log's result holds no secret", !JSON.stringify(samples).includes("AKIAIDVWTFKTANGPVYQE"), clip(rtext, 800));
    }
    check("dream_now, sampling with tools: three model turns, then done", samples.length === 3 && !res.isError, `${samples.length} turns; ${JSON.stringify(res)}`);
    const st = await mcp.client.callTool({ name: "dream_status", arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS });
    check("dream_status after the dream: no pending logs", /pending[^\n]*:\s*0\b/i.test(mcpText(st)), mcpText(st));
  } catch (e) {
    fail("dream_now, sampling with tools", `${e.message}; ${samples.length} createMessage requests`);
  } finally {
    await mcp?.client.close().catch(() => {});
    if (mcp) checkStderr("mcp server (sampling with tools)", mcp.stderr());
  }
}

async function run(rpc, mcp, rpcDir, mcpDir) {
  const { client } = mcp;

  // -- server info
  const instructions = client.getInstructions() || "";
  check("server instructions say when to recall", /recall/i.test(instructions), `instructions: ${JSON.stringify(clip(instructions))}`);

  // -- tools: names, schemas, descriptions
  const rpcList = (await rpc.request("tools.list", {})).result.tools;
  const rpcByName = Object.fromEntries(rpcList.map((t) => [t.name, t]));
  const { tools } = await client.listTools();
  const mcpByName = Object.fromEntries(tools.map((t) => [t.name, t]));
  const workNames = rpcList.map((t) => t.name);
  const extra = ["remember", "dream_status", "dream_now"];
  const want = [...workNames, ...extra].sort();
  const got = tools.map((t) => t.name).sort();
  check(
    `tools/list names = tools.list's ${workNames.length} work tools + ${extra.join(", ")}`,
    same(want, got),
    `missing: ${want.filter((n) => !got.includes(n)).join(", ") || "none"}; unexpected: ${got.filter((n) => !want.includes(n)).join(", ") || "none"}`,
  );
  for (const name of workNames) {
    const m = mcpByName[name];
    if (!m) continue; // reported above
    check(
      `${name}: inputSchema = tools.list parameters`,
      same(m.inputSchema, rpcByName[name].parameters),
      `json-rpc: ${JSON.stringify(rpcByName[name].parameters)}\nmcp:      ${JSON.stringify(m.inputSchema)}`,
    );
    check(
      `${name}: description = tools.list description`,
      m.description === rpcByName[name].description,
      `json-rpc: ${JSON.stringify(rpcByName[name].description)}\nmcp:      ${JSON.stringify(m.description)}`,
    );
  }
  for (const name of extra) {
    const m = mcpByName[name];
    if (!m) continue;
    check(`${name}: has a description and an object inputSchema`, !!m.description && m.inputSchema?.type === "object", JSON.stringify(m));
  }

  // -- every work tool, same arguments on both paths, same text
  const called = new Set();
  // expectError: a tool error (isError) on MCP; "protocol": a JSON-RPC error -32602 is right too (the MCP
  // spec's own example of a protocol error is an unknown tool).
  const compare = async (label, name, args, { expectError = false } = {}) => {
    called.add(name);
    const { rpc: r, mcp: m } = await callBoth(rpc, mcp, name, args);
    const rt = r.text !== undefined ? norm(r.text, rpcDir) : undefined;
    const mt = m.text !== undefined ? norm(m.text, mcpDir) : undefined;
    if (VERBOSE) console.log(`---- ${label}\n json-rpc: ${JSON.stringify(r)}\n mcp:      ${JSON.stringify(m)}`);
    if (expectError === "protocol" && m.protocol) {
      check(`${label}: an error on both paths (mcp: protocol error -32602)`, r.error !== undefined && /-32602/.test(m.error), `json-rpc: ${JSON.stringify(r)}\nmcp:      ${JSON.stringify(m)}`);
      return r;
    }
    if (expectError) {
      check(
        `${label}: an error on both paths (mcp: isError result)`,
        r.error !== undefined && m.error !== undefined && !m.protocol,
        `json-rpc: ${JSON.stringify(r)}\nmcp:      ${JSON.stringify(m)}`,
      );
      if (r.error !== undefined && m.error !== undefined && !m.protocol) {
        check(`${label}: mcp error text carries the json-rpc message`, m.error.includes(r.error), `json-rpc: ${r.error}\nmcp:      ${m.error}`);
      }
      return r;
    }
    if (r.error !== undefined) {
      fail(`${label}: json-rpc tools.call`, `test bug or sidecar bug: ${r.error}`);
      return r;
    }
    if (m.error !== undefined) {
      fail(`${label}: mcp tools/call`, `json-rpc answered ${JSON.stringify(clip(rt))}\nmcp failed: ${m.error}`);
      return r;
    }
    check(`${label}: same text as json-rpc`, rt === mt, `${diff(rt, mt)}\njson-rpc: ${JSON.stringify(clip(rt))}\nmcp:      ${JSON.stringify(clip(mt))}`);
    if (rt === mt && !rt.trim()) fail(`${label}: non-empty`, "both texts are empty");
    return r;
  };

  const recall = await compare("recall_memories docker", "recall_memories", { query: "docker build cache", limit: 5 });
  check("recall finds the seeded pitfall", (recall.text || "").includes("docker-buildkit"), clip(recall.text || JSON.stringify(recall)));
  await compare("recall_memories knowledge only", "recall_memories", { query: "deploy Vega", types: "knowledge" });
  await compare("recall_memories no match", "recall_memories", { query: "zebra quantum marmalade" });
  await compare("search_knowledge query", "search_knowledge", { query: "vega deploy" });
  await compare("search_knowledge entry_type", "search_knowledge", { entry_type: "pitfall", limit: 3 });
  await compare("search_knowledge strongest", "search_knowledge", {});
  await compare("search_episodes query", "search_episodes", { query: "docker" });
  await compare("search_episodes dates+tags", "search_episodes", { since: "2026-11-01", until: "2026-11-30", tags: "ci" });
  await compare("search_episodes latest", "search_episodes", {});
  await compare("search_recent_conversation", "search_recent_conversation", {});
  await compare("search_recent_conversation query", "search_recent_conversation", { query: "gateway" });
  const added = await compare("add_intention", "add_intention", { what: "Renew the Vega TLS certificate", due: "2030-01-15", cue: "tls, cert", priority: "high" });
  const added2 = await compare("add_intention (words due date)", "add_intention", { what: "Send the Vega release notes", due: "tomorrow", cue: "release" });
  await compare("list_intentions", "list_intentions", {});
  const idOf = (r) => ((r.text || "").match(/pi-\d{8}-\d{3}/) || [])[0];
  const id1 = idOf(added);
  const id2 = idOf(added2);
  check("add_intention answers an id", !!id1 && !!id2, `${JSON.stringify(added)} ${JSON.stringify(added2)}`);
  if (id1) await compare("complete_intention", "complete_intention", { intention_id: id1 });
  if (id2) await compare("cancel_intention", "cancel_intention", { intention_id: id2 });
  await compare("list_intentions after close", "list_intentions", {});
  // failures: the same ones, as tool errors the model can read (isError), not protocol errors
  await compare("complete_intention unknown id", "complete_intention", { intention_id: "pi-20000101-999" });
  await compare("unknown tool", "no_such_tool", {}, { expectError: "protocol" });
  await compare("search_episodes bad argument type", "search_episodes", { limit: "many" }, { expectError: true });
  await compare("add_intention missing required", "add_intention", {}, { expectError: true });
  // what models and clients really send: no arguments at all, nulls, junk, out-of-range limits
  await compare("list_intentions, arguments omitted", "list_intentions", undefined);
  await compare("search_knowledge, arguments omitted", "search_knowledge", undefined);
  await compare("recall_memories, null optional arguments", "recall_memories", { query: "docker", types: null, limit: null });
  await compare("recall_memories, unknown extra argument", "recall_memories", { query: "docker", junk: { a: 1 }, session: "x" });
  await compare("search_episodes, limit 500 (clamped to 50)", "search_episodes", { query: "docker", limit: 500 });
  await compare("search_knowledge, limit 2", "search_knowledge", { limit: 2.0 });
  await compare("recall_memories, CJK query", "recall_memories", { query: "刘超 网关" });
  await compare("recall_memories, empty query", "recall_memories", { query: "" }, { expectError: true });
  const untested = workNames.filter((n) => !called.has(n));
  check("every work tool called", untested.length === 0, `not called: ${untested.join(", ")}`);

  // both data dirs hold the same files after the same calls (the MCP path writes what JSON-RPC writes)
  const rt = readTree(rpcDir);
  const mt = readTree(mcpDir);
  const intentFiles = (t) => Object.keys(t).filter((k) => k.startsWith("memory/intentions/")).sort();
  check(
    "same intention files on both data dirs",
    same(intentFiles(rt), intentFiles(mt)) && intentFiles(rt).every((k) => rt[k] === mt[k]),
    `json-rpc: ${intentFiles(rt).join(", ")}\nmcp:      ${intentFiles(mt).join(", ")}`,
  );

  // -- prompt: somni-context carries prompt.build's three parts, without and with its arguments
  try {
    const { prompts } = await client.listPrompts();
    const p = prompts.find((x) => x.name === "somni-context");
    if (check("prompts/list has somni-context", !!p, `prompts: ${prompts.map((x) => x.name).join(", ")}`)) {
      const argNames = (p.arguments || []).map((a) => a.name);
      const variants = [["defaults", {}, {}]];
      // the documented arguments, mapped onto prompt.build's speakerUserId and currentMessage
      if (argNames.includes("user_id") && argNames.includes("message")) {
        variants.push(["user_id=sam, message", { user_id: "sam", message: "any news on the gateway?" }, { speakerUserId: "sam", currentMessage: "any news on the gateway?" }]);
      } else {
        fail("somni-context arguments", `want user_id and message, got ${JSON.stringify(p.arguments)}`);
      }
      for (const [label, margs, rargs] of variants) {
        for (const a of p.arguments || []) if (a.required && !(a.name in margs)) margs[a.name] = "hello";
        const pb = (await rpc.request("prompt.build", rargs)).result;
        const got = await client.getPrompt({ name: "somni-context", arguments: margs });
        const text = got.messages.map((m) => (m.content?.type === "text" ? m.content.text : "")).join("\n");
        if (VERBOSE) console.log(`---- somni-context ${label}\n${text}\n---- prompt.build\n${JSON.stringify(pb)}`);
        for (const part of ["identity", "intentions", "discipline"]) {
          const want = (pb[part] || "").trim();
          if (!want) continue;
          check(`somni-context (${label}) carries prompt.build's ${part}`, text.includes(want), `prompt.build ${part}: ${JSON.stringify(clip(want))}\nsomni-context: ${JSON.stringify(clip(text, 1500))}`);
        }
        if (label !== "defaults") check(`somni-context (${label}) has sam's profile`, text.includes("Sam reviews infra changes"), clip(text, 1500));
      }
    }
  } catch (e) {
    fail("somni-context prompt", e.message);
  }

  // -- resources: about_me, the user profile, open intentions
  try {
    const { resources } = await client.listResources();
    const list = resources.map((r) => `${r.name} <${r.uri}>`).join(", ");
    const find = (re) => resources.find((r) => re.test(r.uri) || re.test(r.name));
    const wantRes = [
      ["about_me", /about[_-]?me/i, "coding assistant for the Vega project"],
      ["the default user's profile", /users\/default\b|user-default/i, "Robin prefers tabs over spaces"],
      ["sam's profile", /users\/sam\b|user-sam/i, "Sam reviews infra changes"],
      ["open intentions", /intention/i, "pi-20261129-001"],
    ];
    for (const [label, re, needle] of wantRes) {
      const r = find(re);
      if (!check(`resources/list has ${label}`, !!r, `resources: ${list}`)) continue;
      const res = await client.readResource({ uri: r.uri });
      const text = (res.contents || []).map((c) => c.text || "").join("\n");
      check(`resources/read ${label} (${r.uri}) has the seeded text`, text.includes(needle), `want ${JSON.stringify(needle)} in ${JSON.stringify(clip(text))}`);
      if (label === "open intentions") {
        check("open intentions resource leaves out the closed ones", (!id1 || !text.includes(id1)) && (!id2 || !text.includes(id2)), clip(text));
      }
    }
    const { resourceTemplates } = await client.listResourceTemplates();
    const tpl = resourceTemplates.find((t) => /\{user_?id\}/i.test(t.uriTemplate));
    if (check("resources/templates/list has a user profile template", !!tpl, JSON.stringify(resourceTemplates))) {
      const uri = tpl.uriTemplate.replace(/\{[^}]+\}/, "sam");
      const res = await client.readResource({ uri });
      const text = (res.contents || []).map((c) => c.text || "").join("\n");
      check(`resources/read ${uri} has sam's profile`, text.includes("Sam reviews infra changes"), clip(text));
    }
  } catch (e) {
    fail("resources", e.message);
  }

  // -- remember: a note kept for the dreamer, source client named, secret redacted
  const rem = mcpByName.remember;
  if (rem) {
    const props = rem.inputSchema?.properties || {};
    const textKey = (rem.inputSchema?.required || []).find((k) => props[k]?.type === "string") || Object.keys(props).find((k) => props[k]?.type === "string");
    const secret = "AKIAIDVWTFKTANGPVYQE";
    const note = `Robin decided the Vega staging cluster moves to region eu-north-1; staging key AWS_ACCESS_KEY_ID=${secret}`;
    const before = readTree(mcpDir);
    try {
      const res = await client.callTool({ name: "remember", arguments: { [textKey]: note } }, undefined, { timeout: CALL_TIMEOUT_MS });
      if (check("remember answers without error", !res.isError && mcpText(res).trim() !== "", JSON.stringify(res))) {
        const after = readTree(mcpDir);
        const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
        const holder = changed.find((k) => after[k].includes("eu-north-1"));
        check("remember writes the note into the data dir", !!holder, `changed files: ${changed.join(", ") || "none"}`);
        if (holder) {
          check(`remember names its source client (${CLIENT_NAME})`, after[holder].includes(CLIENT_NAME), `${holder}:\n${clip(after[holder], 800)}`);
          check("remember redacts the secret", !Object.values(after).some((t) => t.includes(secret)) && !mcpText(res).includes(secret), `${holder}:\n${clip(after[holder], 800)}`);
        }
      }
    } catch (e) {
      fail("remember", e.message);
    }
  }

  // -- dream_status, dream_now (this client offers no sampling: it must say what it needs)
  if (mcpByName.dream_status) {
    try {
      const res = await client.callTool({ name: "dream_status", arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS });
      check("dream_status answers text", !res.isError && mcpText(res).trim() !== "", JSON.stringify(res));
    } catch (e) {
      fail("dream_status", e.message);
    }
  }
  if (mcpByName.dream_now) {
    try {
      const res = await client.callTool({ name: "dream_now", arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS });
      const text = mcpText(res);
      check("dream_now without sampling says it needs a host or --llm openai", /--llm/.test(text) && /sampling|host/i.test(text), JSON.stringify(res));
    } catch (e) {
      fail("dream_now", e.message);
    }
  }

  // -- still serving after the errors
  try {
    await client.ping({ timeout: CALL_TIMEOUT_MS });
    ok("still serving after the errors (ping)");
  } catch (e) {
    fail("ping", e.message);
  }
}

const overall = setTimeout(() => {
  fail("overall", `not done in ${TOTAL_TIMEOUT_MS / 1000}s`);
  summary();
  process.exit(1);
}, TOTAL_TIMEOUT_MS);
try {
  await main();
} catch (e) {
  fail("unexpected", e.stack || e.message);
}
clearTimeout(overall);
summary();
process.exit(failed ? 1 : 0);
