// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DreamScheduler } from '../../lib/dream.js';
import { dreamNowDefinition, isReadOnlyTool, sanitizeSchema, toSidecarTools, workToolDefinition } from '../../lib/tools.js';
import { agentDouble, callDouble, partial } from './doubles.mjs';

/** @typedef {'session.closeAll' | 'sleep.status' | 'sleep.run' | 'sleep.cancel'} DreamMethod */
/** @typedef {import('../../lib/methods.js').ResultOf<DreamMethod>} Reply */
/** @typedef {Partial<Record<DreamMethod, Reply | ((params: import('../../lib/methods.js').ParamsOf<DreamMethod>) => Reply | Promise<Reply>)>>} Replies */
/** @typedef {import('@deepseek-ai/dsh-tools').ToolRunContext} ToolRunContext */

/**
 * A scheduler on a fake clock whose sidecar answers from `replies` (`{ ok: true }` when not given).
 * @param {Partial<import('../../lib/dream.js').DreamDeps>} [over]
 * @param {Replies} [replies]
 */
function sched(over = {}, replies = {}) {
  let now = 1_000_000;
  /** @type {DreamMethod[]} */
  const calls = [];
  const flags = { up: true, idle: true, flushed: 0, after: 0 };
  const s = new DreamScheduler({
    call: callDouble(async (/** @type {DreamMethod} */ method, params) => {
      calls.push(method);
      const r = replies[method];
      return typeof r === 'function' ? r(params) : r ?? { ok: true };
    }),
    isUp: () => flags.up,
    allIdle: () => flags.idle,
    flushCapture: async () => void flags.flushed++,
    afterDream: () => void flags.after++,
    idleMs: 15 * 60_000,
    maxIntervalMs: 6 * 3_600_000,
    minPendingLogs: 2,
    now: () => now,
    log: { info() {}, warn() {} },
    ...over,
  });
  return { s, calls, flags, advance: (/** @type {number} */ ms) => (now += ms) };
}

test('not due before the idle period, or while busy, down or dreaming', async () => {
  const { s, calls, flags, advance } = sched({}, { 'sleep.status': { pendingLogs: 5 }, 'sleep.run': { status: 'deep_sleep', summary: 's' } });
  assert.equal(await s.tick(), undefined);
  advance(14 * 60_000);
  assert.equal(s.due(), false);
  advance(60_000);
  flags.idle = false;
  assert.equal(s.due(), false, 'an agent is running');
  flags.idle = true;
  flags.up = false;
  assert.equal(s.due(), false, 'sidecar down');
  flags.up = true;
  s.touch();
  assert.equal(s.due(), false, 'activity resets the idle clock');
  advance(15 * 60_000);
  const out = await s.tick();
  assert.equal(out?.status, 'deep_sleep');
  assert.deepEqual(calls, ['session.closeAll', 'sleep.status', 'sleep.run']);
  assert.equal(flags.flushed, 1);
  assert.equal(flags.after, 1);
});

test('one quiet spell earns one automatic dream, even when logs stay pending', async () => {
  const { s, calls, advance } = sched({}, { 'sleep.status': { pendingLogs: 3 }, 'sleep.run': { status: 'deep_sleep', summary: '' } });
  advance(16 * 60_000);
  assert.equal((await s.tick())?.status, 'deep_sleep');
  advance(16 * 60_000);
  assert.equal(s.due(), false, 'no second dream without new activity');
  assert.equal(await s.tick(), undefined);
  assert.equal(calls.filter((c) => c === 'sleep.run').length, 1);
  s.touch();
  assert.equal(s.due(), false, 'activity restarts the idle clock');
  advance(15 * 60_000);
  assert.equal(s.due(), true, 'quiet again after new activity');
  const { s: s2, advance: adv2 } = sched({}, { 'sleep.status': { pendingLogs: 3 }, 'sleep.run': { status: 'error', reason: 'model down' } });
  adv2(16 * 60_000);
  assert.equal((await s2.tick())?.status, 'error');
  adv2(6 * 3_600_000 - 1);
  assert.equal(s2.due(), false, 'a failed dream is not retried on every tick');
  adv2(1);
  assert.equal(s2.due(), true, 'the max interval still applies');
});

test('max interval triggers even with recent activity; too few logs skip the run', async () => {
  const { s, calls, advance } = sched({}, { 'sleep.status': { pendingLogs: 1 } });
  for (let i = 0; i < 25; i++) {
    advance(15 * 60_000 - 1);
    s.touch();
  }
  assert.equal(s.due(), true);
  const out = await s.tick();
  assert.ok(out, 'a dream attempt');
  assert.equal(out.status, 'skipped');
  assert.match(out.text, /1 pending session log\(s\) \(need 2\)/);
  assert.ok(!calls.includes('sleep.run'));
});

test('an agent turning running cancels an automatic dream but not a manual one', async () => {
  /** @type {(reply: Reply) => void} */
  let finish = () => assert.fail('sleep.run not called yet');
  const { s, calls, advance } = sched({}, {
    'sleep.status': { pendingLogs: 3 },
    'sleep.run': () => new Promise((/** @type {(reply: Reply) => void} */ r) => (finish = r)),
  });
  advance(16 * 60_000);
  const auto = s.tick();
  await new Promise((r) => setImmediate(r));
  assert.equal(s.dreaming, true);
  const again = await s.runNow();
  assert.equal(again.status, 'skipped', 'dream_now shares the running state');
  s.onAgentStatus('running');
  assert.ok(calls.includes('sleep.cancel'));
  finish({ status: 'interrupted', reason: 'cancelled' });
  assert.equal((await auto)?.status, 'interrupted');
  advance(16 * 60_000);
  assert.equal(s.due(), true, 'an interrupted dream does not use up the next quiet spell');
  assert.equal(s.dreaming, false);
  const manual = s.runNow();
  await new Promise((r) => setImmediate(r));
  const before = calls.filter((c) => c === 'sleep.cancel').length;
  s.onAgentStatus('running');
  assert.equal(calls.filter((c) => c === 'sleep.cancel').length, before, 'manual dream keeps running');
  finish({ status: 'deep_sleep', summary: 'learned 2 things', token_usage: { total_tokens: 42 } });
  const m = await manual;
  assert.equal(m.status, 'deep_sleep');
  assert.match(m.text, /Dream finished \(42 tokens\)\.\nlearned 2 things/);
});

test('dream_now reports failures as tool errors', async () => {
  const def = dreamNowDefinition({ runNow: async () => ({ status: 'error', text: 'Dream failed: boom' }) });
  /** @type {ToolRunContext} */
  const run = partial({});
  await assert.rejects(def.execute({}, run), /boom/);
  const ok = dreamNowDefinition({ runNow: async () => ({ status: 'skipped', text: 'Nothing to dream about' }) });
  assert.equal(await ok.execute({}, run), 'Nothing to dream about');
  assert.deepEqual(ok.output.render({}, 'x'), [{ type: 'text', text: 'x' }]);
});

test('tools.list entries become harness tools with the enforced schema subset', async () => {
  const tools = toSidecarTools({ tools: [
    { name: 'recall_memories', description: 'Recall', parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 20, default: 5 } }, required: ['query'], $schema: 'x' } },
    { name: 'add_intention', description: 'Add', parameters: { type: 'object', properties: { due: { type: ['string', 'null'] } } } },
    { name: '../bad', description: '', parameters: {} },
    'junk',
  ] });
  assert.deepEqual(tools.map((t) => t.name), ['recall_memories', 'add_intention']);
  assert.deepEqual(tools[0].parameters, { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', default: 5 } }, required: ['query'] });
  assert.deepEqual(/** @type {Record<string, unknown>} */ (tools[1].parameters.properties).due, { type: 'string' });
  assert.throws(() => toSidecarTools({}), /no tools array/);
  assert.deepEqual(sanitizeSchema({ type: 'array', items: { type: 'string', pattern: 'x' } }), { type: 'array', items: { type: 'string' } });
  assert.equal(isReadOnlyTool('recall_memories'), true);
  assert.equal(isReadOnlyTool('search_episodes'), true);
  assert.equal(isReadOnlyTool('list_intentions'), true);
  assert.equal(isReadOnlyTool('add_intention'), false);

  /** @type {{ method: 'tools.call', params: import('../../lib/methods.js').ParamsOf<'tools.call'>, timeoutMs: number }[]} */
  const calls = [];
  let refreshed = 0;
  /** @type {import('../../lib/tools.js').ToolDeps} */
  const deps = {
    call: callDouble(async (/** @type {'tools.call'} */ method, params, timeoutMs) => {
      calls.push({ method, params, timeoutMs });
      return { result: `ok ${params.name}` };
    }),
    afterIntentionChange: async () => void refreshed++,
  };
  const recall = workToolDefinition(tools[0], deps);
  const add = workToolDefinition(tools[1], deps);
  assert.equal(recall.isConcurrencySafe?.({}), true);
  assert.equal(add.isConcurrencySafe?.({}), false);
  const signal = new AbortController().signal;
  /** @type {Omit<ToolRunContext, 'agent'>} */
  const run = partial({ signal });
  assert.equal(await recall.execute({ query: 'cat' }, { ...run, agent: agentDouble('s9') }), 'ok recall_memories');
  assert.deepEqual(calls[0], { method: 'tools.call', params: { name: 'recall_memories', args: { query: 'cat' }, sessionId: 's9' }, timeoutMs: 30000 });
  assert.equal(refreshed, 0);
  await add.execute({ due: '2026-01-01' }, run);
  assert.equal(refreshed, 1, 'intention writers refresh the prompt');
  assert.equal(calls[1].params.sessionId, undefined);
  const failing = workToolDefinition(tools[0], { ...deps, call: async () => { throw new Error('somni sidecar is restarting; tools.call not served'); } });
  await assert.rejects(failing.execute({ query: 'x' }, run), /restarting/);
});
