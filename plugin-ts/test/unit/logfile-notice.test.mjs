// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boundLine, LogFile, logFilePath, teeLog } from '../../lib/logfile.js';
import { boundSummary, noticeMessage, Notices, SUMMARY_MAX_CHARS } from '../../lib/notice.js';
import { agentDouble } from './doubles.mjs';
import { enteredMessages, noticeSource, recordingLog, textOf } from './helpers.mjs';

const tmp = () => mkdtempSync(join(tmpdir(), 'somni-log-'));
/**
 * @param {string} key
 * @param {Partial<import('../../lib/install.js').Problem>} [extra]
 * @returns {import('../../lib/install.js').Problem}
 */
const problem = (key, extra = {}) => ({ key, severity: 'off', message: `${key} is broken. Fix: ${key}.`, summary: `memory off: ${key}`, ...extra });

test('log file: lines land as `<time> LEVEL logger message`, folder 0700 and file 0600', () => {
  const f = new LogFile(logFilePath(tmp()));
  f.write('WARNING', 'somni', 'careful');
  f.writeRaw('2026-12-01T00:00:00.000Z INFO somni.main sidecar ready');
  f.writeStderr('2026-12-01T00:00:01.000Z DEBUG somni.index synced');
  f.writeStderr('error while loading shared libraries: libonnxruntime.so.1');
  f.close();
  const lines = readFileSync(f.path, 'utf8').trimEnd().split('\n');
  assert.match(lines[0], /^\d{4}-\d\d-\d\dT[\d:.]+Z WARNING somni careful$/);
  assert.equal(lines[1], '2026-12-01T00:00:00.000Z INFO somni.main sidecar ready');
  assert.equal(lines[2], '2026-12-01T00:00:01.000Z DEBUG somni.index synced', 'the sidecar\'s own lines go in as they are');
  assert.match(lines[3], /Z ERROR somni:sidecar error while loading shared libraries/, 'foreign stderr gets a time and a level');
  if (process.platform !== 'win32') {
    assert.equal(statSync(f.path).mode & 0o777, 0o600);
    assert.equal(statSync(join(f.path, '..')).mode & 0o777, 0o700);
  }
});

test('log file: an existing looser file is tightened to 0600 and appended to, not truncated', { skip: process.platform === 'win32' }, () => {
  const dir = tmp();
  const path = join(dir, 'somni.log');
  writeFileSync(path, 'old line\n', { mode: 0o644 });
  const f = new LogFile(path);
  f.write('INFO', 'somni', 'new line');
  f.close();
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.match(readFileSync(path, 'utf8'), /^old line\n.* INFO somni new line\n$/);
});

test('log file: rotates to somni.log.1 past the bound, keeping one old file', () => {
  const f = new LogFile(join(tmp(), 'somni.log'), { maxBytes: 1000 });
  for (let i = 0; i < 60; i++) f.writeRaw(`line ${String(i).padStart(3, '0')} ${'x'.repeat(80)}`);
  f.close();
  assert.ok(existsSync(`${f.path}.1`), 'rotated');
  assert.ok(!existsSync(`${f.path}.2`), 'one old file only');
  assert.ok(statSync(f.path).size <= 1000 && statSync(`${f.path}.1`).size <= 1000);
  const current = readFileSync(f.path, 'utf8');
  const old = readFileSync(`${f.path}.1`, 'utf8');
  assert.match(current, /line 059 /, 'the newest line is in the current file');
  const lastOld = Number(old.trimEnd().split('\n').at(-1)?.slice(5, 8));
  const firstNew = Number(current.split('\n')[0].slice(5, 8));
  assert.equal(firstNew, lastOld + 1, 'no line lost at the rotation');
  if (process.platform !== 'win32') assert.equal(statSync(f.path).mode & 0o777, 0o600, 'the new file is 0600 too');
});

test('log file: a rotation done by another process is followed, not repeated', () => {
  const dir = tmp();
  const a = new LogFile(join(dir, 'somni.log'), { maxBytes: 200 });
  const b = new LogFile(join(dir, 'somni.log'), { maxBytes: 200 });
  a.writeRaw('a1 ' + 'x'.repeat(150));
  b.writeRaw('b1 ' + 'x'.repeat(150)); // b rotates: a1 goes to .1
  a.writeRaw('a2 ' + 'x'.repeat(150)); // a's descriptor is on .1 now: it reopens somni.log instead of rotating again
  a.close();
  b.close();
  const current = readFileSync(join(dir, 'somni.log'), 'utf8');
  assert.match(readFileSync(join(dir, 'somni.log.1'), 'utf8'), /^a1 /);
  assert.match(current, /^b1 .*\na2 /s, current);
});

test('log file: long lines are bounded, control characters flattened, and a failing write never throws', () => {
  assert.equal(boundLine('a\rb\u001b[31mc', 100), 'a b [31mc');
  assert.equal(boundLine('y'.repeat(50), 10), `${'y'.repeat(10)}…[+40 chars]`);
  const f = new LogFile(join(tmp(), 'l', 'somni.log'), { maxLineChars: 20 });
  f.writeRaw('z'.repeat(5000));
  f.close();
  assert.equal(readFileSync(f.path, 'utf8'), `${'z'.repeat(20)}…[+4980 chars]\n`);
  const blocker = join(tmp(), 'a-file');
  writeFileSync(blocker, '');
  const bad = new LogFile(join(blocker, 'logs', 'somni.log')); // its folder cannot exist
  assert.doesNotThrow(() => bad.write('ERROR', 'somni', 'dropped'));
  assert.equal(bad.lastWriteFailed, true);
});

test('tee logger: the host logger gets every line, the file those at or above its level, printf-formatted', () => {
  const host = recordingLog();
  const f = new LogFile(join(tmp(), 'somni.log'));
  const log = teeLog(host, f, 'somni', 'INFO');
  log.debug('detail %s', 'x');
  log.info('registered %d memory tools', 9);
  log.error('failed: %s', 'boom');
  f.close();
  assert.deepEqual(host.lines, ['debug: detail x', 'info: registered 9 memory tools', 'error: failed: boom']);
  const text = readFileSync(f.path, 'utf8');
  assert.ok(!text.includes('detail'), 'debug is below the file level');
  assert.match(text, / INFO somni registered 9 memory tools\n.* ERROR somni failed: boom\n$/);
});

test('notices: a problem is logged once, told once per session, and several new ones share one notice', () => {
  const log = recordingLog();
  const own = new Set();
  const n = new Notices(log, own, '/d/logs/somni.log');
  n.report(problem('binary'));
  n.report(problem('binary'));
  n.report(problem('model', { severity: 'degraded' }));
  assert.deepEqual(log.lines, ['error: binary is broken. Fix: binary.', 'warn: model is broken. Fix: model.']);
  const m = n.take('s1');
  assert.ok(m);
  assert.equal(m.role, 'user');
  assert.deepEqual({ ...m.source, summary: undefined }, { kind: 'plugin', plugin: 'dsh-somni', form: 'notice', summary: undefined });
  assert.equal(noticeSource(m).summary, 'dsh-somni: memory off: binary (+1 more)');
  assert.match(textOf(m), /- binary is broken\. Fix: binary\.\n- model is broken\. Fix: model\.\nDetails are in \/d\/logs\/somni\.log/);
  assert.ok(own.has(m.id), 'capture skips it');
  assert.equal(n.take('s1'), undefined, 'not again in the same session');
  n.report(problem('gave-up'));
  assert.match(textOf(n.take('s1')), /gave-up is broken/, 'a new problem is news');
  n.resolve('binary');
  assert.deepEqual(n.list().map((p) => p.key), ['model', 'gave-up']);
  n.forget('s1');
  assert.equal(noticeSource(n.take('s1')).summary, 'dsh-somni: memory off: model (+1 more)', 'a forgotten session is told again');
});

test('notices: summaries are bounded to the harness limit; rejected steps and subagents are left alone', async () => {
  assert.equal(boundSummary('x'.repeat(500)).length, SUMMARY_MAX_CHARS);
  assert.equal(noticeSource(noticeMessage([problem('k', { summary: 'y'.repeat(300) })], '/l')).summary.length, SUMMARY_MAX_CHARS);
  const n = new Notices(recordingLog(), new Set(), '/l');
  n.report(problem('binary'));
  assert.deepEqual(await n.preStep({ agent: agentDouble('s1') }, async () => ({ kind: 'reject' })), { kind: 'reject' });
  const sub = await n.preStep({ agent: agentDouble('s1', 'subagent') }, async () => ({ kind: 'enter', messages: [] }));
  assert.deepEqual(enteredMessages(sub), []);
  const top = await n.preStep({ agent: agentDouble('s1') }, async () => ({ kind: 'enter', messages: [] }));
  assert.equal(enteredMessages(top).length, 1, 'the rejected step did not use up the notice');
});
