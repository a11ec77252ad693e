// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { BreakerOpen, HotPath, isMiss } from '../../lib/breaker.js';
import { BREAKER_MISSES, DEADLINES } from '../../lib/deadlines.js';
import { RpcError, RPC_TIMEOUT } from '../../lib/rpc.js';
import { Sidecar, SidecarUnavailable } from '../../lib/sidecar.js';
import { FAKE_SIDECAR, localSpawn, recordingLog, sleep, waitFor } from './helpers.mjs';

/** @typedef {import('../../lib/methods.js').Call} Call */

const timeout = () => new RpcError('assoc.thought: no reply within 5 ms', RPC_TIMEOUT);

/**
 * A HotPath over a scripted call: `replies` decides each call ('ok', 'miss', 'error', 'down').
 * @param {{ replies: string[], pingAnswers?: boolean, up?: boolean }} o
 */
function make(o) {
  let i = 0;
  /** @type {string[]} */
  const calls = [];
  /** @type {string[]} */
  const hung = [];
  /** @type {string[]} */
  const restarts = [];
  /** @type {Call} */
  const call = async (method) => {
    calls.push(method);
    const r = o.replies[i++] ?? 'ok';
    if (r === 'miss') throw timeout();
    if (r === 'error') throw new RpcError(`${method}: bad params`, -32602);
    if (r === 'down') throw new SidecarUnavailable('somni sidecar is restarting');
    if (r === 'starting') return new Promise(() => {}); // waits for a start that does not end
    return /** @type {never} */ ({ hint: 'h' }); // the shape assoc.thought returns
  };
  const log = recordingLog();
  const hot = new HotPath({
    call,
    isUp: () => o.up ?? true,
    ping: async () => {
      await sleep(50); // the probe takes a while: calls meanwhile are skipped
      if (!o.pingAnswers) throw timeout();
      return {};
    },
    restart: (why) => void restarts.push(why),
    onHung: (why) => void hung.push(why),
    log,
    probeMs: 5,
  });
  const ask = () => hot.call('assoc.thought', { sessionId: 's', cue: 'cue text', iterNo: 1 }, 5);
  return { hot, calls, hung, restarts, log, ask };
}

test('the constants: hot deadlines well under a second, a few misses open the breaker', () => {
  for (const k of /** @type {const} */ (['promptBuild', 'promptInTurn', 'assoc', 'capture', 'probe'])) assert.ok(DEADLINES[k] <= 1_000, `${k} = ${DEADLINES[k]}`);
  assert.ok(BREAKER_MISSES >= 2 && BREAKER_MISSES <= 5);
  assert.ok(isMiss(timeout()) && !isMiss(new RpcError('x', -32602)) && !isMiss(new SidecarUnavailable('down')));
});

test('closed: replies go through; misses short of the limit do not open it, and a result or an error reply resets the count', async () => {
  const replies = ['miss', 'miss', 'ok', 'miss', 'miss', 'error', 'miss', 'miss', 'down', 'ok'];
  const { hot, ask, restarts } = make({ replies });
  const outcomes = [];
  for (let n = 0; n < replies.length; n++) outcomes.push(await ask().then(() => 'ok', (e) => (isMiss(e) ? 'miss' : e instanceof SidecarUnavailable ? 'down' : 'error')));
  assert.deepEqual(outcomes, replies);
  assert.equal(hot.state, 'closed');
  assert.equal(hot.trips, 0);
  assert.equal(restarts.length, 0);
});

for (const tc of [
  { name: 'a probe that gets no answer: restart, the user told, closed when the new sidecar is ready', pingAnswers: false },
  { name: 'a probe that is answered: slow, not hung — closed again, no restart', pingAnswers: true },
]) {
  test(`${BREAKER_MISSES} misses in a row open it, calls fail at once; ${tc.name}`, async () => {
    const { hot, ask, calls, hung, restarts, log } = make({ replies: Array(BREAKER_MISSES).fill('miss'), pingAnswers: tc.pingAnswers });
    for (let n = 0; n < BREAKER_MISSES; n++) await assert.rejects(ask(), isMiss);
    assert.equal(hot.trips, 1);
    // Open (or probing): skipped without reaching the sidecar.
    // Failing at once is counted, not timed: the call never reached the sidecar it would wait on.
    const before = calls.length;
    await assert.rejects(ask(), BreakerOpen);
    assert.equal(calls.length, before, 'a call reached the sidecar while open');
    await waitFor(() => hot.state !== 'probing', 1000, 'the probe');
    if (tc.pingAnswers) {
      assert.equal(hot.state, 'closed');
      assert.equal(restarts.length, 0);
      assert.equal(hung.length, 0);
      assert.ok(log.lines.some((l) => /slow, not hung/.test(l)), log.lines.join('\n'));
    } else {
      assert.equal(hot.state, 'open');
      assert.equal(restarts.length, 1);
      assert.equal(hung.length, 1);
      assert.match(hung[0], /missed 3 deadlines in a row .*did not answer a ping/);
      await assert.rejects(ask(), BreakerOpen);
      hot.onReady();
      assert.equal(hot.state, 'closed');
    }
    await ask();
    assert.equal(calls.length, before + 1);
  });
}

test('a call made while the sidecar is starting is bounded by its deadline, and not counted as a miss', async () => {
  const { hot, ask } = make({ replies: Array(BREAKER_MISSES + 1).fill('starting'), up: false });
  for (let n = 0; n <= BREAKER_MISSES; n++) {
    const t0 = Date.now();
    await assert.rejects(ask(), isMiss);
    assert.ok(Date.now() - t0 < 1_000, `waited ${Date.now() - t0} ms`);
  }
  assert.equal(hot.state, 'closed');
  assert.equal(hot.trips, 0);
});

test('a turn that ran out of its allowance opens it after fewer misses, when the last call missed; not after an answer', async () => {
  // One miss, then the turn's allowance ran out: probe now, restart when the ping gets no answer.
  const a = make({ replies: ['miss'] });
  await assert.rejects(a.ask(), isMiss);
  a.hot.onTurnShort();
  assert.equal(a.hot.trips, 1);
  await assert.rejects(a.ask(), BreakerOpen);
  await waitFor(() => a.hot.state === 'open', 1000, 'the probe');
  assert.equal(a.restarts.length, 1);
  assert.ok(a.log.lines.some((l) => /missed 1 deadline in a row and a turn ran out of its allowance/.test(l)), a.log.lines.join('\n'));
  // No miss (a start under way, or the sidecar answered since the last one): nothing to probe.
  const b = make({ replies: ['miss', 'ok'] });
  await assert.rejects(b.ask(), isMiss);
  await b.ask();
  b.hot.onTurnShort();
  const c = make({ replies: ['starting'], up: false });
  await assert.rejects(c.ask(), isMiss);
  c.hot.onTurnShort();
  assert.deepEqual([b.hot.state, b.hot.trips, c.hot.state, c.hot.trips], ['closed', 0, 'closed', 0]);
});

test('settled waits for a restart under way, and not for one that cannot come', async () => {
  const { hot, ask } = make({ replies: Array(BREAKER_MISSES).fill('miss') });
  for (let n = 0; n < BREAKER_MISSES; n++) await assert.rejects(ask(), isMiss);
  await waitFor(() => hot.state === 'open', 1000, 'open');
  // Bounds of a minute against answers in well under a second: a wait for the bound, the bug, is
  // told from the right answer on a machine at any load.
  let t0 = Date.now();
  await hot.settled(60_000, () => false);
  assert.ok(Date.now() - t0 < 20_000, 'waited for a sidecar that is given up');
  setTimeout(() => hot.onReady(), 300);
  t0 = Date.now();
  await hot.settled(60_000, () => true);
  assert.equal(hot.state, 'closed');
  assert.ok(Date.now() - t0 < 20_000, 'did not return when the restart was done');
});

test('with a real manager: a sidecar that stops answering is killed, restarted, and the breaker closes', async () => {
  const { spawn } = localSpawn({ FAKE_SIDECAR_MODE: 'mute-after-ping' });
  const log = recordingLog();
  const sc = new Sidecar({ spawn, argv: [process.execPath, FAKE_SIDECAR], env: {}, cwd: tmpdir(), log, sidecarLog: recordingLog(), backoffMs: 50, stopGraceMs: 300, startTimeoutMs: 2000 });
  /** @type {string[]} */
  const hung = [];
  const hot = new HotPath({
    call: (method, params, timeoutMs, signal) => sc.call(method, params, { timeoutMs, signal }),
    isUp: () => sc.isUp,
    ping: (ms) => sc.ping(ms),
    restart: (why) => sc.restart(why),
    onHung: (why) => void hung.push(why),
    log,
    probeMs: 200,
  });
  sc.onReady(() => hot.onReady());
  await sc.start();
  const firstPid = sc.pid;
  const t0 = Date.now();
  for (let n = 0; n < BREAKER_MISSES; n++) await assert.rejects(hot.call('assoc.action', { sessionId: 's', toolName: 'read', args: {} }, 100), isMiss);
  assert.ok(Date.now() - t0 < 2_000, `three misses took ${Date.now() - t0} ms`);
  await waitFor(() => sc.spawned === 2 && sc.isUp && hot.state === 'closed', 5_000, 'the restart');
  assert.notEqual(sc.pid, firstPid);
  assert.equal(hung.length, 1);
  assert.ok(log.lines.some((l) => /killing somni sidecar pid \d+ to restart it/.test(l)), log.lines.join('\n'));
  await sc.stop();
  await sleep(10);
});
