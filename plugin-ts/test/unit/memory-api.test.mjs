// @ts-check
// The Memory tab's host half without the harness: what the browser sends is checked and bounded
// before it reaches the sidecar, a write conflict becomes a result the tab can show, and a dream
// started from the tab runs in the background.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryHandlers, turnMarks, withTurns } from '../../lib/memory-api.js';
import { MEMORY_LIMITS } from '../../lib/memory-wire.js';
import { RpcError } from '../../lib/rpc.js';

/** @param {(method: string, params: any) => any} answer */
function handlers(answer, running = false) {
  /** @type {[string, any][]} */
  const calls = [];
  /** @type {string[]} */
  const dreams = [];
  const h = memoryHandlers({
    call: /** @type {any} */ (async (/** @type {string} */ method, /** @type {any} */ params) => {
      calls.push([method, params]);
      return answer(method, params);
    }),
    runDream: async (trigger) => {
      dreams.push(trigger);
      return { status: 'deep_sleep', text: 'Dream finished.' };
    },
    dreamRunning: () => running,
    turns: () => [{ start: Date.parse('2026-12-04T10:00:00Z'), said: 'Please read the staging notes' }],
    log: { warn() {} },
  });
  return { h, calls, dreams };
}

test('paths, bodies and queries over their bounds are refused before the sidecar, saying the bound', async () => {
  const { h, calls } = handlers(() => ({}));
  await assert.rejects(() => h.read('a'.repeat(MEMORY_LIMITS.pathChars + 1)), /path is \d+ characters; the limit is 512/);
  await assert.rejects(() => h.write('memory/x.md', 'x'.repeat(MEMORY_LIMITS.rawChars + 1), 'v'), /raw is \d+ characters; the limit is 262144/);
  await assert.rejects(() => h.read(''), /path is required/);
  await assert.rejects(() => h.read(42), /path must be a string/);
  await assert.rejects(() => h.read('memory/\0x'), /NUL/);
  await assert.rejects(() => h.list({ query: 'q'.repeat(MEMORY_LIMITS.queryChars + 1) }), /query is \d+ characters/);
  await assert.rejects(() => h.list({ limit: -1 }), /limit must be a non-negative integer/);
  await assert.rejects(() => h.pin('memory/x.md', 'yes', undefined), /pinned must be true or false/);
  assert.equal(calls.length, 0);
});

test('list passes only what was set, and clamps the page size', async () => {
  const { h, calls } = handlers(() => ({ total: 0, entries: [] }));
  await h.list({ query: 'postgres', limit: 10_000, archived: undefined });
  assert.deepEqual(calls, [['memory.list', { query: 'postgres', limit: MEMORY_LIMITS.listLimit }]]);
});

test('a write conflict is a result with the disk side; other errors stay errors', async () => {
  const conflict = handlers(() => {
    throw new RpcError('memory.write: conflict', -32010, { current: 'on disk', version: 'v2' });
  });
  assert.deepEqual(await conflict.h.write('memory/x.md', 'mine', 'v1'), { status: 'conflict', current: 'on disk', version: 'v2' });
  const ok = handlers(() => ({ version: 'v3', redacted: false }));
  assert.deepEqual(await ok.h.write('memory/x.md', 'mine', 'v1'), { status: 'written', version: 'v3', redacted: false });
  const bad = handlers(() => {
    throw new RpcError('invalid input: bad path', -32602);
  });
  await assert.rejects(() => bad.h.write('../x.md', 'mine', 'v1'), /bad path/);
});

test('Dream now starts in the background; a second start while one runs is refused; the outcome shows in the status', async () => {
  const { h, dreams } = handlers(() => ({ pendingLogs: 0, sleeping: false }));
  assert.deepEqual(h.dreamStart(), { started: true, reason: '' });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(dreams, ['tab']);
  const st = await h.dreamStatus();
  assert.equal(st.sleeping, false);
  assert.equal(st.last?.status, 'deep_sleep');
  const busy = handlers(() => ({}), true);
  assert.equal(busy.h.dreamStart().started, false);
});

test('turnMarks: each turn/start with the first words the person typed in it, not injected messages', () => {
  const msg = (/** @type {string} */ kind, /** @type {string} */ text) => ({ content: [{ type: 'text', text }], source: kind === 'user' ? { kind: 'user' } : { kind: 'plugin', plugin: 'dsh-somni', form: 'recall' } });
  const events = /** @type {any[]} */ ([
    { type: 'turn/start', time: 1000, data: {} },
    { type: 'user/message', time: 1001, data: msg('plugin', '【记忆提示】 a hint') },
    { type: 'user/message', time: 1002, data: msg('user', 'Please read\n the   staging notes') },
    { type: 'user/message', time: 1003, data: msg('user', 'and a second message') },
    { type: 'turn/start', time: 2000, data: {} },
    { type: 'turn/start', time: 3000, data: {} },
    { type: 'user/message', time: 3001, data: msg('user', 'third') },
  ]);
  assert.deepEqual(turnMarks(events), [
    { start: 1000, said: 'Please read the staging notes' },
    { start: 2000, said: '' },
    { start: 3000, said: 'third' },
  ]);
});

test('withTurns: an event belongs to the last turn that started at or before it; before any turn it has none', () => {
  const turns = [{ start: Date.parse('2026-12-04T10:00:00Z'), said: 'x'.repeat(100) }, { start: Date.parse('2026-12-04T10:05:00Z'), said: 'second' }];
  const ev = (/** @type {string} */ time) => ({ time, kind: 'hint', tool: '', query: '', text: '', items: [] });
  const got = withTurns([ev('2026-12-04T09:59:00Z'), ev('2026-12-04T10:00:00Z'), ev('2026-12-04T10:07:30Z')], turns);
  assert.equal(got[0]?.turn, undefined);
  assert.equal(got[1]?.turn, 1);
  assert.equal(got[1]?.turnSaid, `${'x'.repeat(80)}…`);
  assert.deepEqual([got[2]?.turn, got[2]?.turnSaid], [2, 'second']);
});

test('session: the sidecar\'s events come back linked to the host\'s turns', async () => {
  const { h } = handlers(() => ({ events: [{ time: '2026-12-04T10:01:00Z', kind: 'hint', tool: 'assoc.action', query: 'q', text: 't', items: [] }] }));
  const r = await h.session('session-1');
  assert.deepEqual([r.events[0]?.turn, r.events[0]?.turnSaid], [1, 'Please read the staging notes']);
});
