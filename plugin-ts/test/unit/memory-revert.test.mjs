// @ts-check
// Undo a dream, the host half: the dream's id and the entries to undo are checked and bounded before the
// sidecar, the whole dream is asked with no paths, and the sidecar's per-entry outcomes pass through decoded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryHandlers } from '../../lib/memory-api.js';
import { DREAM_UNDO_PATHS, MEMORY_LIMITS } from '../../lib/memory-wire.js';
import { decodeResult } from '../../lib/methods.js';
import { RpcError } from '../../lib/rpc.js';

/** @param {(method: string, params: any) => any} answer */
function handlers(answer) {
  /** @type {[string, any][]} */
  const calls = [];
  const h = memoryHandlers({
    call: /** @type {any} */ (async (/** @type {string} */ method, /** @type {any} */ params) => {
      calls.push([method, params]);
      return answer(method, params);
    }),
    runDream: async () => ({ status: 'deep_sleep', text: '' }),
    dreamRunning: () => false,
    turns: () => [],
    log: { warn() {} },
  });
  return { h, calls };
}

const PORT = 'memory/knowledge/port/SKILL.md';

test('revertDream: one entry by its path, the whole dream with none', async () => {
  const { h, calls } = handlers((_m, p) => ({ undone: (p.paths ?? [PORT]).map((/** @type {string} */ path) => ({ path, op: 'updated', outcome: 'reverted', now: path })) }));
  assert.deepEqual(await h.revertDream('2026-03-04_090000', [PORT]), { undone: [{ path: PORT, op: 'updated', outcome: 'reverted', now: PORT }] });
  await h.revertDream('2026-03-04_090000', undefined);
  await h.revertDream('2026-03-04_090000', []);
  assert.deepEqual(calls, [
    ['memory.revertDream', { dream: '2026-03-04_090000', paths: [PORT] }],
    ['memory.revertDream', { dream: '2026-03-04_090000' }],
    ['memory.revertDream', { dream: '2026-03-04_090000' }],
  ]);
});

test('revertDream: a missing or oversized id, paths that are not a list, too many or bad ones are refused before the sidecar', async () => {
  const { h, calls } = handlers(() => ({ undone: [] }));
  await assert.rejects(() => h.revertDream('', undefined), /dream is required/);
  await assert.rejects(() => h.revertDream(7, undefined), /dream must be a string/);
  await assert.rejects(() => h.revertDream('d'.repeat(65), undefined), /dream is 65 characters; the limit is 64/);
  await assert.rejects(() => h.revertDream('d', PORT), /paths must be a list/);
  await assert.rejects(() => h.revertDream('d', Array(DREAM_UNDO_PATHS + 1).fill(PORT)), /paths holds 501 paths; the limit is 500/);
  await assert.rejects(() => h.revertDream('d', ['a'.repeat(MEMORY_LIMITS.pathChars + 1)]), /path is \d+ characters/);
  await assert.rejects(() => h.revertDream('d', [42]), /path must be a string/);
  assert.equal(calls.length, 0);
});

test('revertDream: the sidecar\'s refusal stays an error', async () => {
  const { h } = handlers(() => {
    throw new RpcError('invalid input: no dream "x"', -32602);
  });
  await assert.rejects(() => h.revertDream('x', undefined), /no dream/);
});

test('the decoded reply: per-entry outcomes with when and who for an entry kept; a dream\'s changes say whether each can be undone', () => {
  const r = decodeResult('memory.revertDream', { undone: [
    { path: PORT, op: 'updated', outcome: 'edited', now: PORT, changedAt: '2026-03-05T10:00:00+08:00', changedBy: '2026-03-05_020000' },
    { path: 'memory/knowledge/x/SKILL.md', op: 'created', outcome: 'reverted', now: 'memory/archived/x/SKILL.md' },
  ] });
  assert.deepEqual(r.undone[0], { path: PORT, op: 'updated', outcome: 'edited', now: PORT, changedAt: '2026-03-05T10:00:00+08:00', changedBy: '2026-03-05_020000' });
  assert.equal(r.undone[1]?.why, undefined);
  const d = decodeResult('memory.dreams', { dreams: [{ id: 'a', changes: [
    { op: 'updated', path: PORT, after: 'ab', kept: true },
    { op: 'updated', path: 'memory/knowledge/big/SKILL.md', after: 'cd' },
    { op: 'created', path: 'memory/knowledge/x/SKILL.md', after: '' },
    { op: 'archived', path: 'memory/knowledge/y/SKILL.md', after: 'ef', archive: 'memory/archived/y/SKILL.md' },
  ] }, { id: 'old' }] });
  assert.deepEqual(d.dreams[0]?.changes.map((c) => c.undoable), [true, false, false, true]);
  assert.deepEqual(d.dreams[1]?.changes, []);
});
