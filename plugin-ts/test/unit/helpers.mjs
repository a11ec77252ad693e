// Shared test helpers: a child_process-backed stand-in for ctx.subprocess.spawn and a recording logger.
import { spawn as nodeSpawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const FAKE_SIDECAR = fileURLToPath(new URL('../fixtures/fake-sidecar.mjs', import.meta.url));

/** Spawns like the harness's subprocess service: scrubbed env plus explicit entries; tree-free terminate. */
export function localSpawn(extraEnv = {}) {
  const specs = [];
  const spawn = (spec) => {
    specs.push(spec);
    const env = { ...process.env, ...extraEnv };
    for (const [k, v] of Object.entries(spec.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = nodeSpawn(spec.argv[0], spec.argv.slice(1), { cwd: spec.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const done = new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exitCode, signal) => resolve({ exitCode, signal }));
    });
    done.catch(() => {});
    return {
      pid: child.pid ?? -1,
      stdin: child.stdin,
      stdout: child.stdout,
      stderr: child.stderr,
      collected: {},
      done,
      terminate() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), spec.graceMs).unref();
        }
      },
      async waitForExit() {
        await done.catch(() => {});
        return true;
      },
    };
  };
  return { spawn, specs };
}

/** A logger that records `level: message` lines. */
export function recordingLog() {
  const lines = [];
  const fmt = (f, args) => {
    let i = 0;
    return String(f).replace(/%[sdo]/g, () => String(args[i++]));
  };
  const mk = (level) => (f, ...args) => lines.push(`${level}: ${fmt(f, args)}`);
  return { lines, debug: mk('debug'), info: mk('info'), warn: mk('warn'), error: mk('error') };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns truthy or `ms` elapse. */
export async function waitFor(fn, ms = 5000, what = 'condition') {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * A stand-in for the plugin's cordis context: the services `apply` uses, with what it registered
 * kept for inspection. `waterfall(name, ...args, last)` runs an event's listeners the way cordis
 * does (each gets `next`, the last `next` returns `last()`); `unload()` runs the effect disposers.
 * @param {{spawn: Function}} o - the subprocess spawn to use (see localSpawn).
 */
export function fakeHost({ spawn }) {
  const listeners = new Map();
  const tools = new Map();
  const sections = [];
  const effects = [];
  const logs = new Map();
  const logger = (name) => {
    if (!logs.has(name)) logs.set(name, recordingLog());
    return logs.get(name);
  };
  const ctx = {
    logger,
    subprocess: { spawn },
    systemPrompt: { section: (s) => (sections.push(s), () => {}) },
    tools: { register: (def) => (tools.set(def.name, def), () => tools.delete(def.name)) },
    llm: { stream: () => { throw new Error('no model in unit tests'); } },
    agentDefaultModel: { currentSelection: () => ({ provider: 'fake', model: 'fake-model' }) },
    agents: { list: () => [] },
    on(name, fn) {
      if (!listeners.has(name)) listeners.set(name, []);
      listeners.get(name).push(fn);
      return () => {};
    },
    effect(fn) {
      effects.push(fn());
    },
  };
  const waterfall = (name, args, last) => {
    const fns = listeners.get(name) ?? [];
    const run = (i) => (i < fns.length ? fns[i](...args, () => run(i + 1)) : last());
    return run(0);
  };
  return {
    ctx,
    tools,
    sections,
    logs,
    waterfall,
    emit: (name, ...args) => (listeners.get(name) ?? []).map((fn) => fn(...args)),
    async unload() {
      for (const d of effects.splice(0)) await d?.();
    },
  };
}

/** A user message as the harness admits it. */
export function userMessage(text) {
  return { id: `m-${Math.random().toString(36).slice(2)}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } };
}

/**
 * Runs one `agent/pre-step` through the plugin's listeners for a top-level (or subagent) session.
 * @returns the decision's messages.
 */
export async function preStep(host, sessionId, text, origin) {
  const agent = { id: sessionId, session: { id: sessionId, header: origin ? { origin } : {} } };
  const messages = [userMessage(text)];
  const decision = await host.waterfall('agent/pre-step', [{ agent, messages, turn: 1, step: 1, signal: new AbortController().signal }], async () => ({ kind: 'enter', messages }));
  return decision.messages;
}

/** The plugin notices among messages. */
export const noticesIn = (messages) => messages.filter((m) => m.source.kind === 'plugin' && m.source.form === 'notice');
