// @ts-check
// Shared test helpers: a child_process-backed stand-in for ctx.subprocess.spawn and a recording logger.
import assert from 'node:assert/strict';
import { spawn as nodeSpawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { agentDouble, loose, partial } from './doubles.mjs';

/** @typedef {import('@deepseek-ai/dsh-subprocess').SubprocessSpawnSpec} SpawnSpec */
/** @typedef {import('@deepseek-ai/dsh-subprocess').SubprocessHandle} SpawnHandle */
/** @typedef {import('@deepseek-ai/dsh-subprocess').SubprocessOutcome} SpawnOutcome */
/** @typedef {import('@deepseek-ai/dsh-session').UserMessage} UserMessage */
/** @typedef {import('@deepseek-ai/dsh-tools').ToolDefinition} ToolDefinition */

export const FAKE_SIDECAR = fileURLToPath(new URL('../fixtures/fake-sidecar.mjs', import.meta.url));

/**
 * Spawns like the harness's subprocess service: scrubbed env plus explicit entries; tree-free terminate.
 * @param {Record<string, string>} [extraEnv]
 */
export function localSpawn(extraEnv = {}) {
  /** @type {SpawnSpec[]} */
  const specs = [];
  /** @type {(spec: SpawnSpec) => SpawnHandle} */
  const spawn = (spec) => {
    specs.push(spec);
    /** @type {NodeJS.ProcessEnv} */
    const env = { ...process.env, ...extraEnv };
    for (const [k, v] of Object.entries(spec.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = nodeSpawn(spec.argv[0], spec.argv.slice(1), { cwd: spec.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    /** @type {Promise<SpawnOutcome>} */
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
  /** @type {string[]} */
  const lines = [];
  /** @type {(f: unknown, args: unknown[]) => string} */
  const fmt = (f, args) => {
    let i = 0;
    return String(f).replace(/%[sdo]/g, () => String(args[i++]));
  };
  /** @type {(level: string) => (f: string, ...args: unknown[]) => void} */
  const mk = (level) => (f, ...args) => void lines.push(`${level}: ${fmt(f, args)}`);
  return { lines, debug: mk('debug'), info: mk('info'), warn: mk('warn'), error: mk('error') };
}

/** @type {(ms: number) => Promise<void>} */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `fn` until it returns truthy or `ms` elapse.
 * @template T
 * @param {() => T | Promise<T>} fn
 * @returns {Promise<NonNullable<T>>}
 */
export async function waitFor(fn, ms = 5000, what = 'condition') {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A listener as the fake host keeps it: any event's arguments, then (for waterfalls) `next`. */
/** @typedef {(...args: unknown[]) => unknown} Listener */

/**
 * A stand-in for the plugin's cordis context: the services `apply` uses, with what it registered
 * kept for inspection. `waterfall(name, ...args, last)` runs an event's listeners the way cordis
 * does (each gets `next`, the last `next` returns `last()`); `unload()` runs the effect disposers.
 * @param {{spawn: (spec: SpawnSpec) => SpawnHandle}} o - the subprocess spawn to use (see localSpawn).
 */
export function fakeHost({ spawn }) {
  /** @type {Map<string, Listener[]>} */
  const listeners = new Map();
  /** @type {Map<string, ToolDefinition>} */
  const tools = new Map();
  /** @type {unknown[]} */
  const sections = [];
  /** @type {(void | (() => unknown))[]} */
  const effects = [];
  /** @type {Map<string, ReturnType<typeof recordingLog>>} */
  const logs = new Map();
  /** @param {string} name */
  const logger = (name) => {
    let log = logs.get(name);
    if (!log) logs.set(name, (log = recordingLog()));
    return log;
  };
  /** @type {import('@deepseek-ai/cordis').Context} */
  const ctx = loose({
    logger,
    subprocess: { spawn },
    systemPrompt: { section: (/** @type {unknown} */ s) => (sections.push(s), () => {}) },
    tools: { register: (/** @type {ToolDefinition} */ def) => (tools.set(def.name, def), () => void tools.delete(def.name)) },
    llm: { stream: () => { throw new Error('no model in unit tests'); } },
    agentDefaultModel: { currentSelection: () => ({ provider: 'fake', model: 'fake-model' }) },
    agents: { list: () => [] },
    /**
     * @param {string} name
     * @param {Listener} fn
     */
    on(name, fn) {
      const fns = listeners.get(name) ?? [];
      listeners.set(name, [...fns, fn]);
      return () => {};
    },
    /** @param {() => void | (() => unknown)} fn */
    effect(fn) {
      effects.push(fn());
    },
  });
  /**
   * The fake host keeps listeners untyped; they are the plugin's, typed by the event, so the chain
   * yields what the event's `last` (the harness's own next step) yields.
   * @template T
   * @param {string} name
   * @param {unknown[]} args
   * @param {() => Promise<T>} last
   * @returns {Promise<T>}
   */
  const waterfall = async (name, args, last) => {
    const fns = listeners.get(name) ?? [];
    /** @type {(i: number) => unknown} */
    const run = (i) => {
      const fn = fns[i];
      return fn ? fn(...args, () => run(i + 1)) : last();
    };
    return /** @type {T} */ (await run(0));
  };
  return {
    ctx,
    tools,
    sections,
    logs,
    waterfall,
    /** @type {(name: string, ...args: unknown[]) => unknown[]} */
    emit: (name, ...args) => (listeners.get(name) ?? []).map((fn) => fn(...args)),
    async unload() {
      for (const d of effects.splice(0)) await d?.();
    },
  };
}

/**
 * A user message as the harness admits it.
 * @param {string} text
 * @returns {UserMessage}
 */
export function userMessage(text) {
  return partial({ id: `m-${Math.random().toString(36).slice(2)}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } });
}

/**
 * Runs one `agent/pre-step` through the plugin's listeners for a top-level (or subagent) session.
 * @param {ReturnType<typeof fakeHost>} host
 * @param {string} sessionId
 * @param {string} text
 * @param {'subagent'} [origin]
 * @returns {Promise<UserMessage[]>} the decision's messages.
 */
export async function preStep(host, sessionId, text, origin) {
  const agent = agentDouble(sessionId, origin);
  const messages = [userMessage(text)];
  /** @type {() => Promise<import('@deepseek-ai/dsh-agent').PreStepDecision>} */
  const enter = async () => ({ kind: 'enter', messages });
  const decision = await host.waterfall('agent/pre-step', [{ agent, messages, turn: 1, step: 1, signal: new AbortController().signal }], enter);
  return decision.kind === 'enter' ? [...decision.messages] : [];
}

/**
 * The plugin notices among messages.
 * @param {readonly UserMessage[]} messages
 */
export const noticesIn = (messages) => messages.filter((m) => m.source.kind === 'plugin' && m.source.form === 'notice');

/**
 * The text of a message's `i`-th block, failing the test when it is not a text block.
 * @param {{ readonly content: readonly import('@deepseek-ai/dsh-llm').ContentBlock[] } | undefined} m
 * @param {number} [i]
 */
export function textOf(m, i = 0) {
  const b = m?.content[i];
  assert.ok(b && b.type === 'text', `block ${i} is not text: ${JSON.stringify(b)}`);
  return b.text;
}

/**
 * A notice's source (plugin, summary), failing the test when the message is not a plugin notice.
 * @param {UserMessage | undefined} m
 */
export function noticeSource(m) {
  const s = m?.source;
  assert.ok(s && s.kind === 'plugin' && s.form === 'notice', `not a plugin notice: ${JSON.stringify(s)}`);
  return s;
}

/**
 * The messages of an entered step, failing the test when the step was rejected.
 * @param {import('@deepseek-ai/dsh-agent').PreStepDecision} d
 */
export function enteredMessages(d) {
  assert.ok(d.kind === 'enter', `step not entered: ${JSON.stringify(d)}`);
  return d.messages;
}
