// @ts-check
// The JavaScript fake sidecar stands in for the Go one in every other unit test, so it must not
// drift: the same requests go to the fake and to the real binary, and every reply must have the same
// shape (keys and JSON types), and pass the plugin's own per-method check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeResult, METHODS } from '../../lib/methods.js';
import { Sidecar } from '../../lib/sidecar.js';
import { FAKE_SIDECAR, localSpawn, recordingLog } from './helpers.mjs';

/** The binary scripts/build.sh packages beside the plugin (SOMNI_SIDECAR_BIN overrides). */
const REAL = process.env.SOMNI_SIDECAR_BIN || fileURLToPath(new URL('../../bin/somni-sidecar', import.meta.url));

/**
 * Keys the real sidecar may send that the fake leaves out, by method: the plugin treats them as
 * optional (ping's `embed` is absent on older sidecars; the fake sends it only when a test asks; `embed`
 * and `index` come once the index is open, which a first ping may precede).
 * @type {Record<string, string[]>}
 */
const OPTIONAL = { ping: ['embed', 'index'] };

/** Stands for a reply the binary could not give: "method not found". */
const MISSING = '(method not found)';

/** The one memory file both sidecars start with (the fake holds the same in memory). */
const MEM_PATH = 'memory/knowledge/coffee-pref/SKILL.md';
const MEM_RAW = '---\nname: coffee-pref\ndescription: The user takes coffee with oat milk\n---\nThe user likes coffee with oat milk.\n';
/** @param {import('../../lib/rpc.js').Json} reply */
const archivedOf = (reply) => (reply && typeof reply === 'object' && !Array.isArray(reply) && typeof reply.archivedTo === 'string' ? reply.archivedTo : '');
/** @param {import('../../lib/rpc.js').Json} reply */
const versionOf = (reply) => (reply && typeof reply === 'object' && !Array.isArray(reply) && typeof reply.version === 'string' ? reply.version : '');
/** @param {import('../../lib/rpc.js').Json} reply - memory.dreams' reply: its newest dream's id ('-' when none). */
const dreamOf = (reply) => {
  const d = reply && typeof reply === 'object' && !Array.isArray(reply) && Array.isArray(reply.dreams) ? reply.dreams[0] : undefined;
  return d && typeof d === 'object' && !Array.isArray(d) && typeof d.id === 'string' ? d.id : '-';
};

/**
 * One request per table method, in an order that makes each meaningful on a fresh data dir
 * (a session with messages before it is closed, a closed log before the dream).
 * Params may be a function of the replies so far.
 * @type {[import('../../lib/methods.js').Method, Record<string, import('../../lib/rpc.js').Json> | ((prev: import('../../lib/rpc.js').Json[]) => Record<string, import('../../lib/rpc.js').Json>)][]}
 */
const REQUESTS = [
  ['ping', {}],
  ['prompt.build', { currentMessage: 'coffee' }],
  ['session.append', { sessionId: 's1', role: 'user', text: 'I like coffee with oat milk' }],
  ['session.append', { sessionId: 's1', role: 'assistant', text: 'Noted.' }],
  ['session.tool', { sessionId: 's1', call: 'bash({"cmd":"ls"})', result: 'a b' }],
  ['assoc.thought', { sessionId: 's1', cue: 'coffee', iterNo: 1 }],
  ['assoc.action', { sessionId: 's1', toolName: 'bash', args: { cmd: 'ls' } }],
  ['session.digest', { sessionId: 's1', maxChars: 1600 }],
  ['assoc.reset', { sessionId: 's1' }],
  ['tools.list', {}],
  ['tools.call', { name: 'recall_memories', args: { query: 'coffee' }, sessionId: 's1' }],
  ['session.close', { sessionId: 's1' }],
  ['session.closeAll', {}],
  ['sleep.status', {}],
  ['sleep.run', { trigger: 'test' }],
  ['sleep.cancel', {}],
  ['memory.list', {}],
  ['memory.list', { query: 'coffee' }],
  ['memory.read', { path: MEM_PATH }],
  // A write needs the version the read just returned.
  ['memory.write', (prev) => ({ path: MEM_PATH, raw: MEM_RAW.replace('oat', 'soy'), version: versionOf(prev[prev.length - 1]) })],
  ['memory.pin', { path: MEM_PATH, pinned: true }],
  ['memory.session', { sessionId: 's1' }],
  ['memory.health', {}],
  ['memory.indexStatus', {}],
  ['memory.export', {}],
  ['memory.dreams', {}],
  // Undo the dream sleep.run just had, whole (the fake keeps no dreams: any id).
  ['memory.revertDream', (prev) => ({ dream: dreamOf(prev[prev.length - 1]) })],
  ['memory.forget', { path: MEM_PATH }],
  // Restore what the forget just archived, where it went.
  ['memory.restore', (prev) => ({ path: archivedOf(prev[prev.length - 1]) })],
  ['memory.create', { name: 'office-wifi', description: 'The office Wi-Fi network', body: 'The office Wi-Fi is corp-5g.' }],
  // The team pool both mount (the real one by --team): the model proposes two shares, one is approved, one rejected.
  ['team.list', {}],
  ['tools.call', { name: 'share_memory', args: { team: 'backend', name: 'staging-pg-port', entry_type: 'fact', description: 'Our staging Postgres listens on port 6543', body: 'Our staging Postgres listens on 6543, not 5432.' }, sessionId: 's1' }],
  ['tools.call', { name: 'share_memory', args: { team: 'backend', name: 'deploy-window', entry_type: 'decision', description: 'We deploy on Tuesdays', body: 'Deploys go out on Tuesdays at 14:00.' } }],
  ['share.list', {}],
  ['share.approve', { id: 'backend/staging-pg-port', description: 'The staging Postgres port is 6543' }],
  ['share.reject', { id: 'backend/deploy-window' }],
  ['shutdown', {}],
];

/**
 * The shape of a JSON value to `depth` levels: types for leaves, key → shape for objects, and the
 * first element's shape for a non-empty array ('array' when empty, which matches any array). Tool
 * parameter schemas are open-ended, so below `depth` an object is just 'object'.
 * @param {unknown} v
 * @param {number} depth
 * @returns {unknown}
 */
function shape(v, depth) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length === 0 || depth === 0 ? 'array' : [shape(v[0], depth - 1)];
  if (typeof v === 'object') {
    if (depth === 0) return 'object';
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, shape(/** @type {Record<string, unknown>} */ (v)[k], depth - 1)]));
  }
  return typeof v;
}

/**
 * Drops what may legitimately differ: optional keys, and array element shapes when either side is empty.
 * @param {unknown} a - fake's shape.
 * @param {unknown} b - real's shape.
 * @returns {[unknown, unknown]}
 */
function comparable(a, b) {
  if (Array.isArray(a) && b === 'array') return ['array', 'array'];
  if (a === 'array' && Array.isArray(b)) return ['array', 'array'];
  if (Array.isArray(a) && Array.isArray(b)) {
    const [x, y] = comparable(a[0], b[0]);
    return [[x], [y]];
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ra = /** @type {Record<string, unknown>} */ (a);
    const rb = /** @type {Record<string, unknown>} */ (b);
    /** @type {Record<string, unknown>} */ const oa = {};
    /** @type {Record<string, unknown>} */ const ob = {};
    for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
      if (k in ra && k in rb) [oa[k], ob[k]] = comparable(ra[k], rb[k]);
      else if (k in ra) oa[k] = ra[k];
      else ob[k] = rb[k];
    }
    return [oa, ob];
  }
  return [a, b];
}

/**
 * Sends every request to one sidecar and returns the raw replies by position.
 * @param {string[]} argv
 * @returns {Promise<import('../../lib/rpc.js').Json[]>}
 */
async function replies(argv) {
  const dir = mkdtempSync(join(tmpdir(), 'somni-shape-'));
  const { spawn } = localSpawn();
  const sc = new Sidecar({
    spawn, argv, env: {}, cwd: dir, log: recordingLog(), sidecarLog: recordingLog(),
    // The dream asks the host model; one plain answer ends it.
    handlers: { 'llm.chat': async () => ({ message: { role: 'assistant', content: 'ok' }, usage: { prompt_tokens: 1, completion_tokens: 1 }, finish_reason: 'stop' }) },
  });
  await sc.start();
  /** @type {import('../../lib/rpc.js').Json[]} */
  const out = [];
  try {
    for (const [method, params] of REQUESTS) {
      /** @type {Record<string, import('../../lib/rpc.js').Json>} */
      const p = typeof params === 'function' ? params(out) : params;
      // A method this binary does not know yet (built from an older tree) is left out of the comparison, not failed.
      out.push(await sc.callRaw(method, p, { timeoutMs: 30_000 }).catch((err) => (err?.code === -32601 ? MISSING : Promise.reject(err))));
    }
  } finally {
    await sc.stop();
  }
  return out;
}

test('the fake sidecar answers every table method with the real binary\'s reply shape', { timeout: 120_000 }, async () => {
  assert.ok(existsSync(REAL), `${REAL} missing: run 'make build' and scripts/build.sh`);
  assert.deepEqual([...new Set(REQUESTS.map(([m]) => m))].sort(), [...METHODS].sort(), 'one request for every method of the table');
  const dir = mkdtempSync(join(tmpdir(), 'somni-shape-real-'));
  mkdirSync(join(dir, dirname(MEM_PATH)), { recursive: true });
  writeFileSync(join(dir, MEM_PATH), MEM_RAW);
  // A team pool beside the data dir (never in it), mounted for the run.
  const pool = mkdtempSync(join(tmpdir(), 'somni-shape-pool-'));
  const [fake, real] = await Promise.all([
    replies([process.execPath, FAKE_SIDECAR]),
    replies([REAL, '--data-dir', dir, '--embed', 'hash', '--llm', 'host', '--team', `backend=${pool}`]),
  ]);
  REQUESTS.forEach(([method], i) => {
    if (real[i] === MISSING) {
      console.log(`# the real binary has no ${method} yet: not compared`);
      return;
    }
    const f = /** @type {Record<string, unknown>} */ (shape(fake[i], 2));
    const r = /** @type {Record<string, unknown>} */ (shape(real[i], 2));
    for (const k of OPTIONAL[method] ?? []) delete r[k];
    const [a, b] = comparable(f, r);
    assert.deepEqual(a, b, `${method}: fake ${JSON.stringify(fake[i])?.slice(0, 300)} vs real ${JSON.stringify(real[i])?.slice(0, 300)}`);
    // Both pass the plugin's boundary check.
    decodeResult(method, /** @type {import('../../lib/rpc.js').Json} */ (fake[i]));
    decodeResult(method, /** @type {import('../../lib/rpc.js').Json} */ (real[i]));
  });
});
