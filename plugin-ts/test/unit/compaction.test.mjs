// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompactionMemory, DIGEST_MAX_CHARS, DIGEST_MIN_CHARS, digestBudget, withDigestBlock } from '../../lib/compaction.js';
import { DreamScheduler } from '../../lib/dream.js';
import { callDouble, loose, partial } from './doubles.mjs';

/** @typedef {import('@deepseek-ai/dsh-llm').StreamChunk} StreamChunk */
/** @typedef {import('@deepseek-ai/dsh-llm').GenerateOptions} GenerateOptions */
/** @typedef {import('@deepseek-ai/dsh-llm').Message} Message */
/** @typedef {import('@deepseek-ai/dsh-session').SessionEvent} SessionEvent */
/** @typedef {'session.digest' | 'assoc.reset'} CompactionMethod */

/** What a native summary call streams: one text block, usage, finish. @type {StreamChunk[]} */
const NATIVE = [
  { type: 'block-start', index: 0, blockType: 'text' },
  { type: 'text-delta', index: 0, text: 'Summary: the user ' },
  { type: 'text-delta', index: 0, text: 'works on staging.' },
  { type: 'block-end', index: 0, block: { type: 'text', text: 'Summary: the user works on staging.' } },
  { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } },
  { type: 'finish', reason: { kind: 'stop' } },
];

/** @param {StreamChunk[]} chunks @returns {AsyncIterable<StreamChunk>} */
async function* stream(chunks) {
  for (const c of chunks) yield c;
}
/** @param {AsyncIterable<StreamChunk>} it */
async function collect(it) {
  const out = [];
  for await (const c of it) out.push(c);
  return out;
}

/** @param {string} text @param {import('@deepseek-ai/dsh-llm').MessageSource} [source] @returns {Message} */
const msg = (text, source = { kind: 'user' }) => partial({ id: 'm', role: 'user', content: [{ type: 'text', text }], source });
/** Shadowed text long enough for the full digest budget, then the backend's instruction. */
const LONG = [msg('x'.repeat(10_000)), msg('Summarize the conversation so far.', { kind: 'plugin', plugin: 'dsh-compaction-basic' })];

/**
 * A CompactionMemory whose sidecar answers `session.digest` with `digest` (a function may hang).
 * @param {{digest?: string | (() => Promise<import('../../lib/methods.js').Digest>), subagent?: boolean, nap?: (id: string) => Promise<import('../../lib/dream.js').DreamOutcome>}} [o]
 */
function memory(o = {}) {
  /** @type {{method: string, params: unknown}[]} */
  const calls = [];
  const m = new CompactionMemory({
    call: callDouble(async (/** @type {CompactionMethod} */ method, params) => {
      calls.push({ method, params });
      if (method !== 'session.digest') return {};
      if (typeof o.digest === 'function') return o.digest();
      return { text: o.digest ?? 'Memory: staging DB port is 6543 (corrected from 5432). Open intention pi-20261204-001.', intentions: 1, memories: 0, statements: 1 };
    }),
    agentOf: () => partial({ session: { header: o.subagent ? { origin: 'subagent' } : {} } }),
    flush: async (id) => void calls.push({ method: 'flush', params: id }),
    digestMs: 50,
    backgroundMs: 1000,
    nap: o.nap,
    log: { info() {}, debug() {} },
  });
  return { m, calls };
}
/** @param {Partial<GenerateOptions>} over @returns {GenerateOptions} */
const options = (over = {}) => loose({ provider: 'p', model: 'm', messages: LONG, sessionId: 's1', purpose: 'compaction', ...over });

test('the digest block comes after every native chunk, in order, right before finish, on a new index', async () => {
  const { m, calls } = memory();
  const out = await collect(m.stream(options(), () => stream(NATIVE)));
  assert.deepEqual(out.slice(0, 5), NATIVE.slice(0, 5), 'native chunks unchanged and in order');
  assert.deepEqual(out.slice(5, 8).map((c) => c.type), ['block-start', 'text-delta', 'block-end']);
  assert.ok(out.slice(5, 8).every((c) => 'index' in c && c.index === 1), 'index 1, unused by the native stream');
  const end = out[7];
  assert.ok(end.type === 'block-end' && end.block.type === 'text' && end.block.text.includes('6543'));
  assert.deepEqual(out[8], NATIVE[5], 'finish last');
  assert.equal(out.length, NATIVE.length + 3);
  // The turn's messages are sent first: the digest reads the session's log.
  assert.deepEqual(calls, [{ method: 'flush', params: 's1' }, { method: 'session.digest', params: { sessionId: 's1', maxChars: DIGEST_MAX_CHARS } }]);
});

test('other purposes, subagents and tiny spans pass through without asking the sidecar', async () => {
  for (const [what, o, opts] of /** @type {[string, {subagent?: boolean}, Partial<GenerateOptions>][]} */ ([
    ['a conversation request', {}, { purpose: undefined }],
    ['a session title', {}, { purpose: 'session-title' }],
    ['a subagent', { subagent: true }, {}],
    ['too little shadowed text', {}, { messages: [msg('hi')] }],
  ])) {
    const { m, calls } = memory(o);
    const native = stream(NATIVE);
    assert.equal(m.stream(options(opts), () => native), native, `${what}: next()'s stream itself`);
    assert.deepEqual(calls, [], what);
  }
});

test('a digest that misses its deadline, fails or is empty leaves the summary unchanged', async () => {
  const cases = {
    late: () => new Promise(() => {}),
    failed: async () => {
      throw new Error('sidecar down');
    },
    empty: '',
    blank: '  \n',
  };
  for (const [what, digest] of Object.entries(cases)) {
    const { m } = memory({ digest: loose(digest) });
    const t0 = Date.now();
    assert.deepEqual(await collect(m.stream(options(), () => stream(NATIVE))), NATIVE, what);
    assert.ok(Date.now() - t0 < 1000, `${what}: bounded by the deadline`);
  }
});

test('no block on a failed or truncated summary, or one without native text', async () => {
  /** @type {StreamChunk[][]} */
  const natives = [
    [...NATIVE.slice(0, 5), { type: 'finish', reason: { kind: 'max-tokens' } }],
    [...NATIVE.slice(0, 5), { type: 'finish', reason: loose({ kind: 'error', failure: { code: 'X', message: 'x' } }) }],
    [NATIVE[4], NATIVE[5]],
  ];
  for (const n of natives) assert.deepEqual(await collect(withDigestBlock(stream(n), Promise.resolve('digest'))), n);
});

test('digest budget: a quarter of the shadowed text, at most DIGEST_MAX_CHARS, none below DIGEST_MIN_CHARS', () => {
  assert.equal(digestBudget(LONG), DIGEST_MAX_CHARS);
  assert.equal(digestBudget([msg('y'.repeat(2000))]), 500);
  // The trailing instruction is the backend's, not shadowed content: it does not raise the budget.
  assert.equal(digestBudget([msg('y'.repeat(2000)), msg('z'.repeat(8000), { kind: 'plugin', plugin: 'dsh-compaction-basic' })]), 500);
  assert.equal(digestBudget([msg('y'.repeat(DIGEST_MIN_CHARS * 4 - 4))]), 0);
});

test('a digest longer than asked is cut to the budget (the harness would reject the whole summary)', async () => {
  const { m } = memory({ digest: 'd'.repeat(5000) });
  const out = await collect(m.stream(options({ messages: [msg('y'.repeat(2000))] }), () => stream(NATIVE)));
  const end = out.find((c) => c.type === 'block-end' && c.index === 1);
  assert.ok(end && end.type === 'block-end' && end.block.type === 'text' && end.block.text.length === 500);
});

/** @param {string} type @param {object} data @returns {SessionEvent} */
const event = (type, data) => loose({ type, seq: 1, time: 0, data });

test('after a compaction: habituation reset, a nap when configured; failed compactions and subagents leave both alone', async () => {
  /** @type {string[]} */
  const naps = [];
  /** @type {() => void} */
  let finishNap = () => {};
  const { m, calls } = memory({ nap: (id) => (naps.push(id), new Promise((r) => (finishNap = () => r({ status: 'deep_sleep', text: '' })))) });
  const main = { id: 's1', header: partial({}) };
  m.onSessionEvent(main, event('compaction/end', { compactionId: 'c1', turn: null, error: 'summary is not smaller' }));
  m.onSessionEvent({ id: 's2', header: partial({ origin: 'subagent' }) }, event('compaction/end', { compactionId: 'c2', turn: null }));
  m.onSessionEvent(main, event('compaction/start', { compactionId: 'c3', turn: 1 }));
  assert.deepEqual(calls, []);
  assert.deepEqual(naps, []);
  m.onSessionEvent(main, event('compaction/end', { compactionId: 'c3', turn: 1 }));
  assert.deepEqual(calls, [{ method: 'assoc.reset', params: { sessionId: 's1' } }]);
  assert.deepEqual(naps, ['s1']);
  assert.equal(m.napping, true);
  let settled = false;
  const settling = m.settle(10_000).then(() => (settled = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(settled, false, 'settle waits for the nap');
  finishNap();
  await settling;
  assert.equal(m.napping, false);
  // Bounded: a nap that never ends does not hold unload forever.
  m.onSessionEvent(main, event('compaction/end', { compactionId: 'c4', turn: 2 }));
  const t0 = Date.now();
  await m.settle(30);
  assert.ok(Date.now() - t0 < 1000);
});

test('a nap flushes that session, then dreams over it alone; it waits for no other dream and none runs beside it', async () => {
  /** @type {string[]} */
  const steps = [];
  /** @type {unknown[]} */
  const runs = [];
  const s = new DreamScheduler({
    call: callDouble(async (/** @type {'session.closeAll' | 'sleep.status' | 'sleep.run' | 'sleep.cancel'} */ method, params) => {
      steps.push(method);
      if (method === 'sleep.run') runs.push(params);
      return method === 'sleep.run' ? { status: 'deep_sleep', summary: 'one fact', reason: '' } : { pendingLogs: 1 };
    }),
    isUp: () => true,
    allIdle: () => true,
    flushCapture: async () => void steps.push('flushAll'),
    afterDream: () => void steps.push('afterDream'),
    idleMs: 1000,
    maxIntervalMs: 10_000,
    minPendingLogs: 1,
    log: { info() {}, warn() {} },
  });
  const napping = s.nap('s1', async () => void steps.push('flush s1'));
  assert.equal((await s.runNow()).status, 'skipped', 'dream_now waits for the nap to end');
  const out = await napping;
  assert.equal(out.status, 'deep_sleep');
  assert.deepEqual(steps, ['flush s1', 'sleep.run', 'afterDream']);
  assert.deepEqual(runs, [{ trigger: 'nap', sessionId: 's1' }]);
  // The running agent does not cancel a nap (it follows a compaction, usually mid-turn).
  const again = s.nap('s1', async () => {});
  s.onAgentStatus('running');
  await again;
  assert.ok(!steps.includes('sleep.cancel'));
});

test('a compaction that ends with the block in its summary is a session event; a failed one, or one without the block, is not', async () => {
  const { m } = memory();
  const main = { id: 's1', header: partial({}) };
  assert.deepEqual(m.carried('s1'), []);
  // The block was added, but the harness rejected the compaction: nothing was carried.
  await collect(m.stream(options(), () => stream(NATIVE)));
  m.onSessionEvent(main, event('compaction/end', { compactionId: 'c1', turn: null, error: 'summary is not smaller' }));
  assert.deepEqual(m.carried('s1'), []);
  // A summary that ended without the block (truncated): nothing to show either.
  await collect(m.stream(options(), () => stream([...NATIVE.slice(0, 5), { type: 'finish', reason: { kind: 'max-tokens' } }])));
  m.onSessionEvent(main, event('compaction/end', { compactionId: 'c2', turn: 1 }));
  assert.deepEqual(m.carried('s1'), []);
  await collect(m.stream(options(), () => stream(NATIVE)));
  m.onSessionEvent(main, event('compaction/end', { compactionId: 'c3', turn: 2 }));
  const got = m.carried('s1');
  assert.equal(got.length, 1);
  assert.equal(got[0]?.kind, 'compaction');
  assert.equal(got[0]?.text, 'Memory: staging DB port is 6543 (corrected from 5432). Open intention pi-20261204-001.');
  assert.ok(!Number.isNaN(Date.parse(got[0]?.time ?? '')));
  assert.deepEqual(m.carried('s2'), [], 'per session');
});
