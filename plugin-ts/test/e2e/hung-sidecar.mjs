#!/usr/bin/env node
// End-to-end: a sidecar that does not answer, in the real harness (long-lived host, the e2e driver
// plugin) with a scripted fake model. The sidecar is the real one behind a proxy
// (test/fixtures/hang-sidecar.mjs) that holds every request from the start until the test releases it
// (hung at start, then merely slow), goes silent once it sees a marker in a request (hung
// mid-session), and is stopped with SIGSTOP later on.
//
// What a hung sidecar may cost a turn is the plugin's per-turn allowance (about 1 s), all hooks
// together. Before it, the first turn waited for the start (up to the 20 s readiness deadline: a turn
// of ~24 s against 4 s) and a later turn ~2 s of per-call deadlines (the prompt refresh, the hint,
// the capture op of the flush the harness makes before each model request). The checks count what the plugin
// waited on rather than time the turn, so they hold on a loaded machine: the plugin writes each turn's
// account to somni.log (every wait with its deadline and what it got, the skipped calls, the time
// spent); the test reads the allowance and the deadlines from there and checks that no wait had a
// deadline beyond the allowance, that the hooks after it ran out did not wait, and that the turn went
// on without memory and memory came back when the sidecar answered. Two wall-clock checks remain,
// both an order of magnitude wide and explained where they are.
// Usage: node test/e2e/hung-sidecar.mjs   (env SOMNI_SIDECAR_BIN overrides the binary; E2E_KEEP=1 keeps the temp dir)
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, systemOf, textsOf } from './fake-model.mjs';
import { PLUGIN_DIR, listFiles, readMatching, runDsh, sidecarPids, sleep, writePatch, checkRunner, expect, scriptedTurns, waitFor, sidecarBinary, finishRun } from './harness.mjs';

const binary = sidecarBinary();
const root = mkdtempSync(join(tmpdir(), 'somni-e2e-hung-'));
const data = join(root, 'data');
const work = join(root, 'workspace');
mkdirSync(work, { recursive: true });
const { results, check } = checkRunner();

const MARKER = 'HANG-NOW-7f3a';
const release = join(root, 'release.flag');
const fixture = join(PLUGIN_DIR, 'test/fixtures/hang-sidecar.mjs');
const wrapper = join(root, 'hang-sidecar.sh');
const env = `SOMNI_REAL_SIDECAR=${JSON.stringify(binary)} HANG_FLAG=${JSON.stringify(join(root, 'hung.flag'))} HANG_MARKER=${MARKER} HOLD_FILE=${JSON.stringify(release)}`;
writeFileSync(wrapper, `#!/bin/sh\n${env} exec ${JSON.stringify(process.execPath)} ${JSON.stringify(fixture)} "$@"\n`, { mode: 0o755 });

const turns = scriptedTurns();
const model = await startFakeModel(turns.answer);
const patch = join(root, 'patch.yml');
writePatch(patch, {
  modelUrl: model.url,
  controlUrl: model.controlUrl,
  pluginConfig: { binary: wrapper, dataDir: data, embed: { provider: 'hash' }, dream: { enabled: false }, logLevel: 'debug' },
});
/** One user turn (same session unless asked); `script` answers this turn's agent requests in order. */
const turn = (text, script, newSession = false) => turns.turn(model, text, script, newSession);
/** A turn of two model requests with a built-in tool between them: every hook that can wait runs. */
const toolTurn = (text, answer, newSession = false, onRequest = () => {}) =>
  turn(text, [
    (req) => (onRequest(req), { toolCalls: [{ name: 'bash', arguments: { command: 'echo check ok', description: 'Run the check' } }] }),
    (req) => (onRequest(req), { content: answer }),
  ], newSession);
const notices = (req) => textsOf(req, 'user').filter((t) => t.includes('[dsh-somni] Long-term memory notice') && t.includes('stopped answering'));
const somniLog = () => readMatching(join(data, 'logs'), /somni\.log$/);
/** The discipline section explains hint lines: present once the sidecar answered `prompt.build`. */
const hasMemorySections = (req) => systemOf(req).includes('【记忆提示】');

/**
 * The plugin's account of one turn's waits on the sidecar (somni.log, written when the turn ends):
 * `turn N of SESSION waited MS ms on the sidecar (allowance MS ms): WHAT SPENT/DEADLINE ms OUTCOME, WHAT skipped, …`.
 * @param {string} sessionId @param {number} turnNo
 */
function account(sessionId, turnNo) {
  const re = new RegExp(`turn ${turnNo} of ${sessionId} waited (\\d+) ms on the sidecar \\(allowance (\\d+) ms\\): (.*)$`, 'm');
  const m = re.exec(somniLog());
  if (!m) return undefined;
  const entries = m[3].split(', ').map((e) => {
    const w = /^(\S+) (\d+)\/(\d+) ms (done|gave up)$/.exec(e);
    if (w) return { what: w[1], spent: Number(w[2]), deadline: Number(w[3]), outcome: w[4] };
    const s = /^(\S+) skipped$/.exec(e);
    if (s) return { what: s[1], spent: 0, deadline: 0, outcome: 'skipped' };
    throw new Error(`unreadable account entry "${e}" in: ${m[0]}`);
  });
  return { waited: Number(m[1]), allowance: Number(m[2]), entries, line: m[0] };
}

/**
 * Checks an account against what the plugin promises whatever the load: an allowance of about a
 * second; no wait armed with a deadline beyond it (the old first turn armed the 20 s start); the
 * deadlines of the waits that ran out, summed, within it (this test's hooks wait one after another: one
 * tool per step); and the time the hooks spent within an order of magnitude of it. That last number is
 * measured (a timer fires late on a busy machine, so it may pass the allowance a little); the bug it
 * guards against is 20 s.
 * @param {ReturnType<typeof account>} a
 */
function withinAllowance(a) {
  expect(a, 'no account of the turn\'s waits on the sidecar in somni.log');
  if (!a) return;
  expect(a.allowance > 0 && a.allowance <= 1_000, `allowance ${a.allowance} ms: ${a.line}`);
  for (const e of a.entries) expect(e.deadline <= a.allowance, `${e.what} waited with a deadline of ${e.deadline} ms, beyond the allowance: ${a.line}`);
  const ranOut = a.entries.filter((e) => e.outcome === 'gave up').reduce((n, e) => n + e.deadline, 0);
  expect(ranOut <= a.allowance, `the turn waited out ${ranOut} ms of deadlines: ${a.line}`);
  expect(a.waited < 10 * a.allowance, `the hooks waited ${a.waited} ms on the sidecar: ${a.line}`);
}

/** Pid of the process the plugin spawned (the fixture, which proxies to the real sidecar). */
function fixturePid() {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (argv.includes(fixture) && argv[argv.indexOf('--data-dir') + 1] === data) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

console.log(`e2e hung sidecar: harness dsh, sidecar ${binary} behind ${wrapper}\n      temp ${root}`);
const host = runDsh({ home: join(root, 'home'), patch, prompt: 'e2e hung host', cwd: work, timeoutMs: 240_000 });

let heldTurn;
/** Whether the sidecar had been released when each request of the held turn arrived. */
const releasedAt = [];
await check('hung at start: the first turn goes on without memory, waiting the turn\'s allowance, not the start', async () => {
  heldTurn = await toolTurn('Please run the warm-up check and tell me how it went.', 'Warm-up check passed.', true, (req) => releasedAt.push(existsSync(release) ? 'released' : 'held'));
  expect(heldTurn.reason === 'completed' && heldTurn.text.includes('Warm-up check passed.'), `turn: ${JSON.stringify(heldTurn).slice(0, 500)}`);
  // The sidecar had answered nothing, not even its readiness ping, when the model was asked.
  expect(releasedAt.length === 2 && releasedAt.every((r) => r === 'held'), `requests: ${releasedAt.join(', ')}`);
  expect(!heldTurn.reqs.some(hasMemorySections), 'memory sections in a turn the sidecar never answered');
  const a = await waitFor('the turn\'s account', () => account(heldTurn.sessionId, 1), 5_000).catch(() => undefined);
  withinAllowance(a);
  // The first assembly waited for the start within the allowance; the hooks after it did not wait again.
  // (A boot slower than the 20 s readiness deadline, on a very busy machine, leaves no start to wait for.)
  const start = a?.entries.find((e) => e.what === 'start');
  expect(start || /did not become ready/.test(somniLog()), `the wait for the start is not in the account: ${a?.line}`);
  if (a && start?.outcome === 'gave up') {
    const after = a.entries.slice(a.entries.indexOf(start) + 1);
    expect(after.every((e) => e.outcome === 'skipped' || e.spent === 0), `waits after the allowance ran out: ${a.line}`);
  }
});

let firstPids = [];
let healthyTurn;
await check('slow start: once the sidecar answers, memory is back in the next turn', async () => {
  writeFileSync(release, 'released\n');
  await waitFor('the sidecar answering its readiness ping', () => /somni sidecar \S+ up \(pid/.test(somniLog()), 30_000);
  firstPids = await waitFor('the sidecar process', () => {
    const p = sidecarPids(data);
    return p.length === 1 ? p : undefined;
  });
  healthyTurn = await toolTurn('Please run the follow-up check and tell me how it went.', 'Follow-up check passed.');
  expect(healthyTurn.reason === 'completed', `turn: ${JSON.stringify(healthyTurn).slice(0, 500)}`);
  // The start's own refresh fills the sections; on a busy machine it may land after the first assembly
  // of this turn, never after the second.
  expect(healthyTurn.reqs.length === 2 && hasMemorySections(healthyTurn.reqs[1]), 'the memory sections are missing after the sidecar answered');
  // Wall clock, an order of magnitude wide: the same two-request turn, held against healthy. A loaded
  // machine slows both alike (the CPU work is the harness's); what the sidecar adds is the allowance,
  // about 1 s. The old first turn waited for the 20 s readiness deadline instead (~17 s more here).
  expect(heldTurn.ms < 3 * healthyTurn.ms + 8_000, `the held turn took ${heldTurn.ms} ms, the healthy one ${healthyTurn.ms} ms`);
});

let hungTurn;
await check('the sidecar hangs mid-session: the turn waits its allowance at most, then goes on without memory', async () => {
  hungTurn = await toolTurn(`Please run the smoke check ${MARKER} and tell me how it went.`, 'Smoke check passed after the hang.');
  expect(hungTurn.reason === 'completed', `turn: ${JSON.stringify(hungTurn).slice(0, 500)}`);
  expect(hungTurn.text.includes('Smoke check passed'), `answer: ${hungTurn.text}`);
  withinAllowance(await waitFor('the turn\'s account', () => account(hungTurn.sessionId, 3), 5_000).catch(() => undefined));
});

await check('the hung sidecar is restarted (a new process answers)', async () => {
  await waitFor('a new sidecar process', () => sidecarPids(data).some((p) => !firstPids.includes(p)), 30_000);
  const log = await waitFor('the breaker closing', () => {
    const text = somniLog();
    return /answers again/.test(text) ? text : undefined;
  }, 30_000);
  expect(/missed \d deadlines? in a row/.test(log) && /killing somni sidecar pid \d+ to restart it/.test(log), `somni.log: ${log.slice(-2500)}`);
});

await check('capture is not lost: the hung turn reaches the session log after the restart', async () => {
  const logs = await waitFor('the hung turn in a session log', () => {
    const text = readMatching(join(data, 'memory'), /^session-log\/.+\.md$/);
    return text.includes(MARKER) && text.includes('Smoke check passed after the hang.') ? text : undefined;
  }, 20_000);
  expect(logs.includes('Please run the warm-up check'), 'the held turn is missing from the session log');
  expect(logs.includes('Follow-up check passed.'), 'the turn after the start is missing from the session log');
  expect(logs.includes('echo check ok'), 'the tool call of the hung turn is missing from the session log');
});

await check('the user is told once, and the next turn is served normally', async () => {
  const r = await turn('And one more question about nothing in particular.', [() => ({ content: 'Answered normally.' })]);
  expect(r.reason === 'completed' && r.text.includes('Answered normally.'), `turn: ${JSON.stringify(r).slice(0, 500)}`);
  expect(hasMemorySections(r.reqs[0]), 'the memory sections are missing after the restart');
  const told = notices(r.reqs[0]);
  expect(told.length === 1, `notices about the hang in the session: ${told.length}: ${JSON.stringify(textsOf(r.reqs[0], 'user')).slice(0, 1500)}`);
});

await check('a sidecar stopped mid-session (SIGSTOP): the turn waits its allowance at most; it is killed and restarted', async () => {
  const pid = fixturePid();
  expect(pid, 'no sidecar process to stop');
  if (!pid) return;
  const before = sidecarPids(data);
  process.kill(pid, 'SIGSTOP');
  const r = await toolTurn('Please run the third check and tell me how it went.', 'Third check passed.');
  expect(r.reason === 'completed' && r.text.includes('Third check passed.'), `turn: ${JSON.stringify(r).slice(0, 500)}`);
  withinAllowance(await waitFor('the turn\'s account', () => account(r.sessionId, 5), 5_000).catch(() => undefined));
  // A stopped process ignores SIGTERM: the harness's kill escalates, and a new sidecar answers.
  await waitFor('a new sidecar process', () => sidecarPids(data).some((p) => !before.includes(p)) && fixturePid() !== pid, 40_000);
  await waitFor('the breaker closing again', () => (somniLog().match(/answers again/g) ?? []).length >= 2, 30_000);
  const next = await turn('Anything else to report?', [() => ({ content: 'Nothing else.' })]);
  expect(next.reason === 'completed' && hasMemorySections(next.reqs[0]), `turn after the stop: ${JSON.stringify(next).slice(0, 500)}`);
});

await check('host exits cleanly with one stderr line about the hang', async () => {
  await Promise.race([model.drive({ op: 'exit' }), sleep(10_000)]);
  const h = await host;
  expect(h.code === 0, `host exit ${h.code}: ${h.stderr.slice(-2000)}`);
  // A boot slower than the 20 s readiness deadline (a very busy machine) adds a line about the start.
  const lines = h.stderr.split('\n').filter((l) => l.startsWith('dsh-somni: ') && !/did not start/.test(l));
  expect(lines.length === 1 && /stopped answering/.test(lines[0]) && lines[0].includes(join(data, 'logs/somni.log')), `stderr lines: ${JSON.stringify(lines)}`);
  await sleep(300);
  expect(sidecarPids(data).length === 0, 'a sidecar outlived the host');
});

await model.close();
console.log(`\ne2e: the held turn took ${heldTurn?.ms ?? '?'} ms, the healthy one ${healthyTurn?.ms ?? '?'} ms, the hung one ${hungTurn?.ms ?? '?'} ms; memory files: ${listFiles(join(data, 'memory')).join(', ')}`);
finishRun(results, root);
