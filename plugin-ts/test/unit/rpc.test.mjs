// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { CANCEL_METHOD, CODE_REQUEST_CANCELLED, RpcPeer } from '../../lib/rpc.js';

/** A peer wired to two in-memory pipes; `sent()` parses everything the peer wrote so far. */
function peer() {
  const fromSidecar = new PassThrough();
  const toSidecar = new PassThrough();
  let written = '';
  toSidecar.on('data', (d) => (written += d));
  const p = new RpcPeer(fromSidecar, toSidecar);
  return {
    p,
    send: (/** @type {unknown} */ msg) => fromSidecar.write(JSON.stringify(msg) + '\n'),
    sent: () => written.split('\n').filter(Boolean).map((l) => JSON.parse(l)),
  };
}
const tick = () => new Promise((r) => setTimeout(r, 5));

test('a call we stop waiting for (timeout or abort) is cancelled at the sidecar', async () => {
  const { p, sent } = peer();
  await assert.rejects(p.call('slow', {}, { timeoutMs: 5 }), /no reply within 5 ms/);
  const ac = new AbortController();
  const aborted = p.call('slower', {}, { signal: ac.signal });
  ac.abort();
  await assert.rejects(aborted, /aborted/);
  const cancels = sent().filter((m) => m.method === CANCEL_METHOD).map((m) => m.params.id);
  const ids = sent().filter((m) => m.method === 'slow' || m.method === 'slower').map((m) => m.id);
  assert.deepEqual(cancels, ids);
});

test('a replied call sends no cancel', async () => {
  const { p, send, sent } = peer();
  const c = p.call('fast', {}, { timeoutMs: 1000 });
  await tick();
  send({ jsonrpc: '2.0', id: sent()[0].id, result: 7 });
  assert.equal(await c, 7);
  assert.equal(sent().filter((m) => m.method === CANCEL_METHOD).length, 0);
});

test('$/cancelRequest aborts only the reverse call it names, which replies -32800', async () => {
  const { p, send, sent } = peer();
  /** @type {Record<string, AbortSignal>} */
  const signals = {};
  p.handle('llm.chat', (params, signal) => {
    const n = params !== null && typeof params === 'object' && !Array.isArray(params) ? String(params.n) : '';
    signals[n] = signal;
    return new Promise((resolve, reject) => {
      signal.addEventListener('abort', () => reject(new Error('stream aborted')), { once: true });
      if (n === 'b') setTimeout(() => resolve({ ok: n }), 20);
    });
  });
  send({ jsonrpc: '2.0', id: 'somni-1', method: 'llm.chat', params: { n: 'a' } });
  send({ jsonrpc: '2.0', id: 'somni-2', method: 'llm.chat', params: { n: 'b' } });
  await tick();
  send({ jsonrpc: '2.0', method: CANCEL_METHOD, params: { id: 'somni-1' } });
  send({ jsonrpc: '2.0', method: CANCEL_METHOD, params: { id: 'somni-99' } }); // unknown: ignored
  await new Promise((r) => setTimeout(r, 40));
  const replies = Object.fromEntries(sent().filter((m) => m.id !== undefined && !m.method).map((m) => [m.id, m]));
  assert.equal(replies['somni-1'].error.code, CODE_REQUEST_CANCELLED);
  assert.deepEqual(replies['somni-2'].result, { ok: 'b' });
  assert.equal(signals.a.aborted, true);
  assert.equal(signals.b.aborted, false);
});
