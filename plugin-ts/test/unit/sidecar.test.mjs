// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sidecar, SidecarUnavailable, relayStderrLine } from '../../lib/sidecar.js';
import { FAKE_SIDECAR, localSpawn, recordingLog, sleep, waitFor } from './helpers.mjs';

/**
 * A manager over the fake sidecar with short timings; `opts` override them, `env` goes to the process.
 * @param {Partial<import('../../lib/sidecar.js').SidecarOptions>} [opts]
 * @param {Record<string, string>} [env]
 */
function make(opts = {}, env = {}) {
  const { spawn, specs } = localSpawn(env);
  const log = recordingLog();
  const sidecarLog = recordingLog();
  const sc = new Sidecar({
    spawn,
    argv: [process.execPath, FAKE_SIDECAR],
    env: {},
    cwd: tmpdir(),
    log,
    sidecarLog,
    backoffMs: 50,
    stopGraceMs: 500,
    startTimeoutMs: 2000,
    ...opts,
  });
  return { sc, log, sidecarLog, specs };
}

test('start is memoised behind ping and calls are served', async () => {
  const { sc, specs } = make();
  const [a, b] = await Promise.all([sc.start(), sc.start()]);
  assert.equal(a, b);
  assert.equal(a.version, 'fake-1');
  assert.equal(specs.length, 1, 'one process for concurrent starts');
  assert.deepEqual(specs[0].stdio, { stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
  const r = await sc.call('tools.call', { name: 'recall_memories', args: { query: 'x' } });
  assert.match(String(r.result), /recalled for x/);
  await sc.stop();
  assert.equal(sc.status, 'stopped');
});

test('a crash rejects in-flight calls, restarts with backoff, and serves again', async () => {
  const { sc, log } = make();
  await sc.start();
  const firstPid = sc.pid;
  const inflight = sc.callRaw('hang', {});
  const crash = sc.callRaw('crash', {});
  await assert.rejects(inflight, SidecarUnavailable);
  await assert.rejects(crash, SidecarUnavailable);
  // Meanwhile callers fail fast instead of waiting.
  await assert.rejects(sc.call('ping', {}), /restarting/);
  await waitFor(() => sc.isUp, 3000, 'restart');
  assert.notEqual(sc.pid, firstPid);
  assert.equal(sc.spawned, 2);
  assert.ok(log.lines.some((l) => /restart 1\/3 in 50 ms/.test(l)), log.lines.join('\n'));
  const r = await sc.call('ping', {});
  assert.equal(r.version, 'fake-1');
  await sc.stop();
});

test('a call that meets a closed pipe before the exit is seen gets the unavailable account, not EPIPE', async () => {
  const { sc } = make();
  await sc.start();
  await sc.callRaw('closeStdin', {});
  await sleep(50);
  await assert.rejects(sc.callRaw('ping', {}), (err) => err instanceof SidecarUnavailable && /not served/.test(err.message));
  await waitFor(() => sc.isUp && sc.spawned === 2, 5000, 'restart after the exit');
  await sc.stop();
});

test('gives up after three restarts when the binary keeps crashing', async () => {
  const { sc, log } = make({}, { FAKE_SIDECAR_MODE: 'crash-on-start' });
  await assert.rejects(sc.start(), SidecarUnavailable);
  await waitFor(() => sc.status === 'failed', 5000, 'failed state');
  assert.equal(sc.spawned, 4, 'first start + 3 restarts');
  assert.ok(log.lines.some((l) => /restart 3\/3 in 150 ms/.test(l)), log.lines.join('\n'));
  assert.ok(log.lines.some((l) => /gave up after 3 restarts/.test(l)));
  await assert.rejects(sc.call('ping', {}), /gave up/);
  await sc.stop();
});

test('a start that never answers ping times out and rejects', async () => {
  const { sc } = make({ startTimeoutMs: 200, maxRestarts: 0 }, { FAKE_SIDECAR_MODE: 'slow-ping' });
  await assert.rejects(sc.start(), /no reply within 200 ms/);
  await waitFor(() => sc.status === 'failed', 3000, 'failed');
  await sc.stop();
});

test('stop sends shutdown, and terminates a sidecar that ignores it', async () => {
  const state = join(mkdtempSync(join(tmpdir(), 'somni-fake-')), 'reqs');
  const { sc, log } = make({ stopGraceMs: 300 }, { FAKE_SIDECAR_STATE: state, FAKE_SIDECAR_MODE: 'no-shutdown' });
  await sc.start();
  const t0 = Date.now();
  await sc.stop();
  const methods = readFileSync(state, 'utf8').trim().split('\n').map((l) => JSON.parse(l).method);
  assert.deepEqual(methods, ['ping', 'shutdown']);
  assert.ok(Date.now() - t0 >= 300, 'waited the grace period');
  assert.ok(log.lines.some((l) => /terminating pid/.test(l)));
  assert.equal(sc.spawned, 1, 'no restart after a deliberate stop');
  await sleep(150);
  assert.equal(sc.spawned, 1);
});

test('stderr lines are re-emitted at their level', async () => {
  const log = recordingLog();
  relayStderrLine('2026 ERROR somni.x boom', log);
  relayStderrLine('2026 WARNING somni.x careful', log);
  relayStderrLine('2026 DEBUG somni.x detail', log);
  relayStderrLine('2026 INFO somni.x fine', log);
  relayStderrLine('   ', log);
  assert.deepEqual(log.lines, ['error: 2026 ERROR somni.x boom', 'warn: 2026 WARNING somni.x careful', 'debug: 2026 DEBUG somni.x detail', 'info: 2026 INFO somni.x fine']);
  const { sc, sidecarLog } = make();
  await sc.start();
  await sc.call('ping', {});
  await sc.stop();
  assert.ok(sidecarLog.lines.some((l) => l.startsWith('info: ') && l.includes('serving ping')));
  assert.ok(sidecarLog.lines.some((l) => l.startsWith('debug: ') && l.includes('fake sidecar ready')));
});

test('reverse llm.chat calls reach the handler and its reply is used', async () => {
  /** @type {import('../../lib/rpc.js').Json[]} */
  const seen = [];
  const { sc } = make({
    handlers: {
      'llm.chat': async (params) => {
        seen.push(params);
        return { message: { role: 'assistant', content: 'dreamt well' }, usage: { prompt_tokens: 3, completion_tokens: 2 } };
      },
    },
  });
  await sc.start();
  const r = await sc.call('sleep.run', { trigger: 'test' });
  assert.equal(r.status, 'deep_sleep');
  assert.equal(r.summary, 'model said: dreamt well');
  assert.deepEqual(seen[0], { messages: [{ role: 'system', content: 'dream' }, { role: 'user', content: 'go' }], tools: [] });
  await sc.stop();
});

test('spawn env carries exactly the explicit entries', async () => {
  const { sc, specs } = make({ env: { SLEEP_API_KEY: 'k', SOMNI_DATA_DIR: undefined } });
  await sc.start();
  assert.deepEqual(specs[0].env, { SLEEP_API_KEY: 'k', SOMNI_DATA_DIR: undefined });
  await sc.stop();
});
