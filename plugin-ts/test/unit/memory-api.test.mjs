// @ts-check
// The Memory tab's host half without the harness: what the browser sends is checked and bounded
// before it reaches the sidecar, a write conflict becomes a result the tab can show, and a dream
// started from the tab runs in the background.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryHandlers, mergeNewestFirst, turnMarks, withTurns } from '../../lib/memory-api.js';
import { MEMORY_LIMITS } from '../../lib/memory-wire.js';
import { RpcError } from '../../lib/rpc.js';

/** @param {(method: string, params: any) => any} answer @param {import('../../lib/memory-wire.js').SessionMemoryEvent[]} [carried] */
function handlers(answer, running = false, carried = []) {
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
    carried: () => carried,
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

test('session: a compaction that carried memory is merged in by time, newest first, with its turn', async () => {
  const ev = (/** @type {string} */ time, /** @type {string} */ kind) => ({ time, kind, tool: '', query: '', text: kind, items: [] });
  const { h } = handlers(() => ({ events: [ev('2026-12-04T10:09:00Z', 'recall'), ev('2026-12-04T10:01:00Z', 'hint')] }), false, [ev('2026-12-04T10:05:00Z', 'compaction')]);
  const r = await h.session('session-1');
  assert.deepEqual(r.events.map((e) => e.kind), ['recall', 'compaction', 'hint']);
  assert.equal(r.events[1]?.turn, 1);
  assert.deepEqual(mergeNewestFirst([], [ev('2026-12-04T10:05:00Z', 'compaction')]).map((e) => e.kind), ['compaction']);
  assert.deepEqual(mergeNewestFirst([ev('2026-12-04T10:05:00Z', 'hint')], []).map((e) => e.kind), ['hint']);
});

test('team pools and proposals: each call forwards to its sidecar method', async () => {
  const { h, calls } = handlers((method) => (method === 'team.list' ? { teams: [] } : { proposals: [] }));
  assert.deepEqual(await h.teams(), { teams: [] });
  assert.deepEqual(await h.proposals(), { proposals: [] });
  assert.deepEqual(calls, [['team.list', {}], ['share.list', {}]]);
});

test('approve passes the id and only the edits made; reject the id', async () => {
  const shared = { team: 'backend', name: 'ci-cache', path: 'knowledge/ci-cache/SKILL.md', file: '/p/.somni/knowledge/ci-cache/SKILL.md', sharedBy: 'Alice', next: 'it is left for you to commit with your code: /p/.somni/knowledge/ci-cache/SKILL.md' };
  const { h, calls } = handlers((method, params) => (method === 'share.reject' ? { rejected: params.id } : shared));
  assert.deepEqual(await h.approve('backend/ci-cache', undefined, undefined), shared);
  await h.approve('backend/ci-cache', 'When the CI cache misses', 'Bump CACHE_EPOCH.');
  await h.approve('backend/ci-cache', '', undefined);
  assert.deepEqual(await h.reject('backend/flaky'), { rejected: 'backend/flaky' });
  assert.deepEqual(calls, [
    ['share.approve', { id: 'backend/ci-cache' }],
    ['share.approve', { id: 'backend/ci-cache', description: 'When the CI cache misses', body: 'Bump CACHE_EPOCH.' }],
    ['share.approve', { id: 'backend/ci-cache' }],
    ['share.reject', { id: 'backend/flaky' }],
  ]);
});

test('approve and reject: a missing, mistyped or oversized argument is refused before the sidecar, saying the bound', async () => {
  const { h, calls } = handlers(() => ({}));
  await assert.rejects(() => h.approve(undefined, undefined, undefined), /id is required/);
  await assert.rejects(() => h.approve(7, undefined, undefined), /id must be a string/);
  await assert.rejects(() => h.approve('b/'.repeat(MEMORY_LIMITS.shareIdChars), undefined, undefined), /id is \d+ characters; the limit is 256/);
  await assert.rejects(() => h.approve('backend/x', 'd'.repeat(MEMORY_LIMITS.descriptionChars + 1), undefined), /description is \d+ characters; the limit is 1024/);
  await assert.rejects(() => h.approve('backend/x', undefined, 'b'.repeat(MEMORY_LIMITS.rawChars + 1)), /body is \d+ characters; the limit is 262144/);
  await assert.rejects(() => h.approve('backend/x', undefined, { text: 'x' }), /body must be a string/);
  await assert.rejects(() => h.reject(''), /id is required/);
  await assert.rejects(() => h.reject('x'.repeat(MEMORY_LIMITS.shareIdChars + 1)), /id is \d+ characters/);
  assert.equal(calls.length, 0);
});

test('a refused approval or rejection is the sidecar\'s sentence alone, as the call\'s error; other failures stay as they were', async () => {
  const said = 'proposal backend/ci-cache: team backend already has "ci-cache" (knowledge/ci-cache/SKILL.md, same name); a teammate\'s entry is never overwritten';
  const refused = handlers((method) => {
    throw new RpcError(`${method}: ${method === 'share.reject' ? 'no proposal backend/x waits' : said}`, -32602);
  });
  await assert.rejects(() => refused.h.approve('backend/ci-cache', undefined, undefined), (err) => err instanceof Error && err.message === said);
  await assert.rejects(() => refused.h.reject('backend/x'), (err) => err instanceof Error && err.message === 'no proposal backend/x waits');
  const down = handlers(() => {
    throw new RpcError('share.approve: no reply within 10000 ms', -2);
  });
  await assert.rejects(() => down.h.approve('backend/ci-cache', undefined, undefined), (err) => err instanceof RpcError && err.message === 'share.approve: no reply within 10000 ms');
});
