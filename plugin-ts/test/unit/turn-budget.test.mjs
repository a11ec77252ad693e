// @ts-check
// The hung-sidecar bound: what a sidecar that does not answer costs a turn, all hooks together. Time is
// the mocked clock of node:test (timers and Date), advanced in 10 ms steps until a hook returns, so
// what is measured is the deadlines the plugin waited out, not how busy the machine is: the counts hold
// at any load. The sidecar is an in-process double on stream pipes that holds, answers or ignores
// requests as told.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { DEADLINES, TurnAllowanceSpent, TurnBudget } from '../../lib/deadlines.js';
import { SHIPPED_TOOLS_LIST } from '../../lib/tool-schemas.js';
import { lines } from '../fixtures/lines.mjs';
import { agentDouble, loose, partial } from './doubles.mjs';
import { fakeHost, userMessage } from './helpers.mjs';

/** @typedef {import('@deepseek-ai/dsh-subprocess').SubprocessSpawnSpec} SpawnSpec */
/** @typedef {import('@deepseek-ai/dsh-subprocess').SubprocessHandle} SpawnHandle */
/** @typedef {import('@deepseek-ai/dsh-subprocess').SubprocessOutcome} SpawnOutcome */
/** @typedef {import('@deepseek-ai/dsh-system-prompt').PromptAssembly} PromptAssembly */
/** @typedef {import('@deepseek-ai/dsh-agent').PreStepDecision} PreStepDecision */
/** @typedef {import('@deepseek-ai/dsh-tools').PostToolDecision} PostToolDecision */

/** Lets every timer-free step run: stream events, promise chains, immediates. */
async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

/**
 * Advances the mocked clock in 10 ms steps until `p` settles; the mocked milliseconds it took.
 * @param {Promise<unknown>} p
 */
async function mockedMs(p, limit = 120_000) {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  let ms = 0;
  await settle();
  while (!done) {
    assert.ok(ms < limit, `still waiting after ${limit} mocked ms`);
    mock.timers.tick(10);
    ms += 10;
    await settle();
  }
  return ms;
}

/** Replies of the sidecar double: enough of each shape for the plugin's checks. */
/** @type {Record<string, unknown>} */
const REPLIES = {
  ping: { version: 'double', dataDir: '/d', memoryDir: '/d/memory', skillDir: '/d/skills', llm: 'host', vector: true, pendingLogs: 0, embed: { provider: 'hash', id: 'hash', degraded: '' } },
  'tools.list': SHIPPED_TOOLS_LIST,
  'prompt.build': { identity: '', intentions: '', discipline: 'DISCIPLINE FROM THE SIDECAR' },
  'assoc.thought': { hint: '' },
  'assoc.action': { hint: '' },
};

/**
 * A sidecar double for `ctx.subprocess.spawn`: every spawned "process" reads requests from its stdin
 * and, by `mode`, answers them ('answer'), keeps them to answer once released ('hold'), or ignores
 * them ('silent', hung). `terminate()` ends it.
 * @param {'answer' | 'hold' | 'silent'} mode
 */
function sidecarDouble(mode) {
  /** @type {string[]} */
  const received = [];
  /** @type {{id: number, method: string, out: PassThrough}[]} */
  let held = [];
  let spawned = 0;
  /** @param {{id: number, method: string, out: PassThrough}} req */
  const reply = (req) => void req.out.write(JSON.stringify({ jsonrpc: '2.0', id: req.id, result: REPLIES[req.method] ?? {} }) + '\n');
  /** @type {(spec: SpawnSpec) => SpawnHandle} */
  const spawn = () => {
    spawned++;
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    /** @type {(o: SpawnOutcome) => void} */
    let exit = () => {};
    /** @type {Promise<SpawnOutcome>} */
    const done = new Promise((r) => (exit = r));
    lines(stdin, (line) => {
      const msg = JSON.parse(line);
      if (typeof msg.id !== 'number' || typeof msg.method !== 'string') return; // a cancel, a reply
      received.push(msg.method);
      const req = { id: msg.id, method: msg.method, out: stdout };
      if (d.mode === 'answer') reply(req);
      else if (d.mode === 'hold') held.push(req);
    });
    return partial({
      pid: 4000 + spawned,
      stdin,
      stdout,
      stderr: new PassThrough(),
      done,
      terminate: () => exit({ exitCode: null, signal: 'SIGTERM' }),
      waitForExit: async () => true,
    });
  };
  const d = {
    mode,
    spawn,
    received,
    /** Processes spawned so far. */
    spawned: () => spawned,
    /** Answers what was held, and everything from now on. */
    release() {
      d.mode = /** @type {typeof mode} */ ('answer');
      for (const req of held) reply(req);
      held = [];
    },
  };
  return d;
}

/**
 * The plugin on a fake host over a sidecar double, and one turn's hooks in rc.8's order: the turn
 * starts, the message is claimed, the prompt assembled; the step's pre-step (after the harness's
 * checkpoint flush), the message appended, the checkpoint flush before the model request; the model's
 * tool call, the flush before the tool runs, its post-execute; a second step (assembly, two flushes);
 * the turn ends. The harness awaits every `session/flush` (dsh-session-checkpoint-policy).
 * @param {ReturnType<typeof sidecarDouble>} sidecar
 */
async function plugin(sidecar) {
  const { apply } = await import('../../lib/index.js');
  const host = fakeHost({ spawn: sidecar.spawn });
  const dataDir = mkdtempSync(join(tmpdir(), 'somni-turn-budget-'));
  apply(host.ctx, { dataDir, binary: process.execPath, embed: { provider: 'hash' }, dream: { enabled: false }, logLevel: 'debug' });
  const agent = agentDouble('session-1');
  const session = agent.session;
  let seq = 0;
  /** @param {string} type @param {unknown} data */
  const event = (type, data) => host.emit('session/event', session, { type, seq: ++seq, time: 0, data });
  const flush = () => Promise.all(host.emit('session/flush', session));
  /** The assembly; resolves with the text our discipline section got. */
  const assemble = async () => {
    /** @type {PromptAssembly} */
    const assembly = partial({ sections: [{ name: 'somni:discipline', text: '' }], tools: [] });
    const out = await host.waterfall('system-prompt/assemble', [assembly, { agent }], async () => assembly);
    return out.sections.find((s) => s.name === 'somni:discipline')?.text;
  };
  /** @param {import('@deepseek-ai/dsh-session').UserMessage[]} messages @param {number} turn @param {number} step */
  const preStep = async (messages, turn, step) => {
    await flush();
    return host.waterfall('agent/pre-step', [{ agent, messages, turn, step, signal: new AbortController().signal }], async () => /** @type {PreStepDecision} */ ({ kind: 'enter', messages }));
  };
  const postExecute = async () => {
    await flush();
    return host.waterfall('tools/post-execute', [loose({ agent, name: 'bash', arguments: { command: 'ls' }, callId: 'c1' }), loose({ isError: false, content: [] })], async () => /** @type {PostToolDecision} */ ({ kind: 'accept' }));
  };
  /** One whole turn: the mocked ms its hooks took before the first model request, and in all. */
  const turn = async (/** @type {number} */ n, /** @type {string} */ text) => {
    event('turn/start', { turn: n });
    const message = userMessage(text);
    host.emit('agent/inbox/claimed', { agent, message, turn: n });
    let discipline;
    let ms = await mockedMs(assemble().then((t) => (discipline = t)));
    ms += await mockedMs(preStep([message], n, 1));
    event('user/message', message);
    ms += await mockedMs(flush()); // before the model request
    const beforeModel = ms;
    event('assistant/message', { turn: n, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'Running it.' }] } });
    event('tool/call', { turn: n, step: 1, callId: 'c1', name: 'bash', arguments: '{"command":"ls"}' });
    ms += await mockedMs(postExecute());
    event('tool/result', { turn: n, step: 1, message: { role: 'tool', source: { kind: 'tool', callId: 'c1' }, content: [{ type: 'text', text: 'a b c' }] } });
    ms += await mockedMs(assemble());
    ms += await mockedMs(preStep([], n, 2));
    ms += await mockedMs(flush());
    event('assistant/message', { turn: n, step: 2, message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } });
    event('turn/end', { turn: n, reason: { kind: 'completed' } });
    await settle();
    return { beforeModel, total: ms, discipline };
  };
  const log = () => host.logs.get('somni')?.lines ?? [];
  const unload = () => mockedMs(host.unload());
  return { host, turn, log, unload };
}

test('TurnBudget: waits share the allowance, and once it is spent calls are skipped without being made', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
  try {
    const b = new TurnBudget(1_000, 100);
    b.begin('s', 1);
    const never = new Promise(() => {});
    assert.equal(await (async () => {
      const w = b.wait('s', 'start', never, 20_000);
      assert.equal(await mockedMs(w), 1_000, 'a 20 s wait cut to the allowance');
      return w;
    })(), false);
    let made = 0;
    await assert.rejects(b.call('s', 'assoc.thought', 500, async () => void made++), TurnAllowanceSpent);
    assert.equal(made, 0);
    const account = b.end('s');
    assert.equal(account?.short, true);
    assert.match(account?.line ?? '', /^turn 1 of s waited 1000 ms on the sidecar \(allowance 1000 ms\): start 1000\/1000 ms gave up, assoc\.thought skipped$/);
    // A new turn has its whole allowance again; a healthy turn uses what its answers took.
    b.begin('s', 2);
    assert.equal(await b.call('s', 'assoc.thought', 500, async (ms) => ms), 500);
    assert.deepEqual(b.end('s'), { short: false, line: 'turn 2 of s waited 0 ms on the sidecar (allowance 1000 ms): assoc.thought 0/500 ms done' });
  } finally {
    mock.timers.reset();
  }
});

test('TurnBudget: a deadline is cut to what is left, overlapping waits count once, less than the floor is skipped', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
  try {
    const b = new TurnBudget(1_000, 100);
    b.begin('s', 1);
    /** @type {number[]} */
    const deadlines = [];
    /** A call that gets no answer: it runs out the deadline it was given. */
    const hung = () => b.call('s', 'assoc.action', 500, (ms) => (deadlines.push(ms), new Promise((r) => setTimeout(r, ms))));
    // Three tools' hints at once: 500 ms of the turn, not 1 500.
    assert.equal(await mockedMs(Promise.all([hung(), hung(), hung()])), 500);
    assert.equal(await mockedMs(b.call('s', 'prompt.build', 800, (ms) => (deadlines.push(ms), new Promise((r) => setTimeout(r, ms))))), 500);
    assert.deepEqual(deadlines, [500, 500, 500, 500], 'the prompt.build deadline cut to the 500 ms left');
    await assert.rejects(hung(), TurnAllowanceSpent);
    b.begin('s', 2);
    await mockedMs(b.call('s', 'x', 950, (ms) => new Promise((r) => setTimeout(r, ms))));
    await assert.rejects(hung(), TurnAllowanceSpent, '50 ms left is under the floor');
    // A key whose turn start was not seen gets a whole allowance.
    assert.equal(await b.call('other', 'x', 500, async (ms) => ms), 500);
  } finally {
    mock.timers.reset();
  }
});

test('a sidecar hung at start costs the first turn the allowance, not the 20 s start; memory is back once it answers, capture sent once', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
  const sidecar = sidecarDouble('hold');
  const p = await plugin(sidecar);
  try {
    const t1 = await p.turn(1, 'hello there');
    // The first assembly waited for the start, then nothing else of the turn waited.
    assert.ok(t1.beforeModel <= DEADLINES.turn + 20, `the first model request waited ${t1.beforeModel} mocked ms (the start's deadline is ${DEADLINES.start})`);
    assert.ok(t1.total <= DEADLINES.turn + 30, `the turn waited ${t1.total} mocked ms`);
    assert.equal(t1.discipline, '', 'no memory text without a sidecar');
    assert.ok(p.log().some((l) => /^info: turn 1 of session-1 waited \d+ ms on the sidecar \(allowance 1000 ms\): start 1000\/1000 ms gave up, .*assoc\.thought skipped/.test(l)), p.log().join('\n'));
    assert.deepEqual(sidecar.received, ['ping'], 'only the readiness ping went out while the start was held');
    // The sidecar answers (a slow start, not a hung one): memory is in the next turn, the first turn's
    // message captured once.
    sidecar.release();
    await settle();
    const t2 = await p.turn(2, 'and again');
    assert.equal(t2.discipline, 'DISCIPLINE FROM THE SIDECAR');
    assert.ok(t2.total <= 30, `a turn with the sidecar answering waited ${t2.total} mocked ms`);
    await settle();
    // Each turn: the user's message, two assistant messages, one tool call; none sent twice.
    const sent = (/** @type {string} */ m) => sidecar.received.filter((r) => r === m).length;
    assert.deepEqual([sent('session.append'), sent('session.tool')], [6, 2], `sent: ${sidecar.received.join(', ')}`);
  } finally {
    await p.unload();
    mock.timers.reset();
  }
});

test('a sidecar that hangs mid-session costs a turn the allowance at most, hooks before and after the model request together', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
  const sidecar = sidecarDouble('answer');
  const p = await plugin(sidecar);
  try {
    const t1 = await p.turn(1, 'hello there');
    assert.equal(t1.discipline, 'DISCIPLINE FROM THE SIDECAR');
    assert.ok(t1.total <= 30, `a healthy turn waited ${t1.total} mocked ms`);
    sidecar.mode = 'silent';
    const t2 = await p.turn(2, 'are you there');
    // Before: 800 ms for the prompt refresh, 500 for the hint before the step, 800 for the capture
    // at the checkpoint before the model request; then 500 for the hint after the tool.
    assert.ok(t2.beforeModel <= DEADLINES.turn + 20, `the first model request waited ${t2.beforeModel} mocked ms`);
    assert.ok(t2.total <= DEADLINES.turn + 30, `the turn waited ${t2.total} mocked ms`);
    assert.equal(t2.discipline, 'DISCIPLINE FROM THE SIDECAR', 'the sections keep their last text');
    // The prompt refresh missed its own deadline, the hint got what was left and missed it, and nothing
    // after waited: the capture at the harness's checkpoints goes on in the background.
    const account = p.log().find((l) => l.startsWith('info: turn 2 of session-1 '));
    assert.match(account ?? '', /waited \d+ ms on the sidecar \(allowance 1000 ms\): prompt\.build \d+\/1000 ms done, capture 0\/\d+ ms done, assoc\.thought \d+\/\d+ ms gave up, (capture skipped, )+assoc\.action skipped(, capture skipped)+$/, p.log().join('\n'));
    // The turn went without the sidecar with its last call missed: the breaker probes at the turn's end
    // and, the ping unanswered, has it restarted (probe 1 s, then the first restart's 2 s backoff).
    const restartedIn = await mockedMs(new Promise((resolve) => {
      const poll = () => (sidecar.spawned() === 2 ? resolve(undefined) : setImmediate(poll));
      poll();
    }));
    assert.ok(restartedIn <= DEADLINES.probe + 2_000 + 100, `restarted ${restartedIn} mocked ms after the turn`);
    assert.ok(p.log().some((l) => /^warn: the somni sidecar missed 2 deadlines in a row and a turn ran out of its allowance/.test(l)), p.log().join('\n'));
  } finally {
    await p.unload();
    mock.timers.reset();
  }
});
