// @ts-check
// On a host without a UI of its own (headless), each degraded state is one stderr line per process:
// what is off, why, the log path. A host that serves a UI keeps to the notice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { internals, servesUi, stderrLine, TerminalLine } from '../../lib/terminal.js';

/** @type {import('../../lib/install.js').Problem} */
const OFF = { key: 'binary', severity: 'off', message: 'no somni sidecar for linux-x64:\n dsh-somni-linux-x64 is not installed. Memory features are off.', summary: 'memory off: no sidecar for linux-x64' };
/** @type {import('../../lib/install.js').Problem} */
const MODEL = { key: 'model', severity: 'degraded', message: 'the model package is missing; the local embedder falls back.', summary: 'embedder falls back' };

/** Captures what TerminalLine writes. */
function capture() {
  /** @type {string[]} */
  const out = [];
  const was = internals.stderr;
  internals.stderr = { write: (/** @type {string} */ s) => out.push(s) };
  return { out, restore: () => (internals.stderr = was) };
}

test('one line per process on a host without a UI: what is off, why, the log; new problems get their own once', () => {
  const c = capture();
  try {
    /** @type {import('../../lib/install.js').Problem[]} */
    const problems = [OFF];
    const t = new TerminalLine(() => false, () => problems, '/d/logs/somni.log');
    t.flush();
    t.flush();
    assert.equal(c.out.length, 1);
    assert.equal(c.out[0], 'dsh-somni: memory off: no sidecar for linux-x64: no somni sidecar for linux-x64: dsh-somni-linux-x64 is not installed. Memory features are off. (log: /d/logs/somni.log)\n');
    problems.push(MODEL);
    t.flush();
    t.flush();
    assert.equal(c.out.length, 2);
    assert.match(c.out[1], /^dsh-somni: embedder falls back: .*\(log: \/d\/logs\/somni\.log\)\n$/);
  } finally {
    c.restore();
  }
});

test('a host with a UI keeps to the notice, even once its UI service is gone at unload', () => {
  const c = capture();
  try {
    let ui = true;
    const t = new TerminalLine(() => ui, () => [OFF, MODEL], '/l');
    t.flush();
    ui = false;
    t.flush();
    assert.equal(c.out.length, 0);
  } finally {
    c.restore();
  }
});

test('problems found at the same time share one line', () => {
  const c = capture();
  try {
    new TerminalLine(() => false, () => [OFF, MODEL], '/l').flush();
    assert.equal(c.out.length, 1);
    assert.ok(c.out[0].includes('Also: embedder falls back.') && c.out[0].split('\n').length === 2, c.out[0]);
  } finally {
    c.restore();
  }
  assert.equal(stderrLine([], '/l'), '');
});

test('the host is asked for a web server when a line is due', () => {
  /** @type {Record<string, unknown>} */
  const services = {};
  const ctx = /** @type {Pick<import('@deepseek-ai/cordis').Context, 'get'>} */ (/** @type {unknown} */ ({ get: (/** @type {string} */ name) => services[name] }));
  assert.equal(servesUi(ctx), false);
  services.webServer = {};
  assert.equal(servesUi(ctx), true);
  assert.equal(servesUi(/** @type {Pick<import('@deepseek-ai/cordis').Context, 'get'>} */ (/** @type {unknown} */ ({}))), false, 'a host without get() has no UI we can see');
});
