// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Capture, SessionMapper, blocksText, isSubagent } from '../../lib/capture.js';
import { clip } from '../../lib/clip.js';
import { partial, untimedCallDouble } from './doubles.mjs';

/** @typedef {import('@deepseek-ai/dsh-session').SessionEvent} SessionEvent */
/** @typedef {import('@deepseek-ai/dsh-session').UserMessage} UserMessage */
/** @typedef {import('@deepseek-ai/dsh-session').SessionHeader} SessionHeader */

let seq = 0;
/**
 * @param {string} text
 * @param {import('./doubles.mjs').DeepPartial<UserMessage['source']>} [source]
 * @returns {SessionEvent}
 */
const user = (text, source = { kind: 'user' }, id = `u${seq}`) => ({ type: 'user/message', seq: ++seq, time: 0, data: partial({ id, role: 'user', content: [{ type: 'text', text }], source }) });
/**
 * @param {string} text
 * @returns {SessionEvent}
 */
const assistant = (text) => ({ type: 'assistant/message', seq: ++seq, time: 0, data: { turn: 1, step: 1, message: partial({ id: 'a', role: 'assistant', content: [{ type: 'reasoning', text: 'hidden' }, { type: 'text', text }], source: { kind: 'model', provider: 'p', model: 'm' } }) } });
/**
 * @param {string} callId
 * @param {string} name
 * @param {string} args
 * @returns {SessionEvent}
 */
const toolCall = (callId, name, args) => ({ type: 'tool/call', seq: ++seq, time: 0, data: partial({ turn: 1, step: 1, callId, name, arguments: args }) });
/**
 * @param {string} callId
 * @param {string} text
 * @param {{ isError?: boolean, error?: { name: string, code: string } }} [extra]
 * @returns {SessionEvent}
 */
const toolResult = (callId, text, extra = {}) => ({ type: 'tool/result', seq: ++seq, time: 0, data: { turn: 1, step: 1, message: partial({ id: 'r', role: 'user', content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], ...(extra.isError ? { isError: true } : {}) }], source: { kind: 'tool', callId } }), ...(extra.error ? { error: extra.error } : {}) } });
/** @returns {SessionEvent} */
const turnEnd = () => ({ type: 'turn/end', seq: ++seq, time: 0, data: { turn: 1, reason: { kind: 'completed' } } });

test('event mapping: user words, assistant text, tool call joined with its result', () => {
  const own = new Set(['hint-1']);
  const m = new SessionMapper('s1', 4000, (id) => own.has(id));
  assert.deepEqual(m.map(user('remember my cat is Tom')), [{ method: 'session.append', params: { sessionId: 's1', role: 'user', text: 'remember my cat is Tom' } }]);
  assert.deepEqual(m.map(assistant('Noted.')), [{ method: 'session.append', params: { sessionId: 's1', role: 'assistant', text: 'Noted.' } }]);
  assert.deepEqual(m.map(toolCall('c1', 'bash', '{ "command" : "ls" }')), []);
  assert.deepEqual(m.map(toolResult('c1', 'a.txt\nb.txt')), [{ method: 'session.tool', params: { sessionId: 's1', call: 'bash({"command":"ls"})', result: 'a.txt\nb.txt' } }]);
  assert.deepEqual(m.map(toolCall('c2', 'read', '{"path":"x"}')), []);
  assert.deepEqual(m.map(toolResult('c2', 'no such file', { isError: true, error: { name: 'FsError', code: 'ENOENT' } })), [
    { method: 'session.tool', params: { sessionId: 's1', call: 'read({"path":"x"})', result: 'ERROR (FsError/ENOENT): no such file' } },
  ]);
});

test('injected context, our own hints, blank text and bookkeeping events are not captured', () => {
  const own = new Set(['hint-1']);
  const m = new SessionMapper('s1', 4000, (id) => own.has(id));
  assert.deepEqual(m.map(user('【记忆提示】x', { kind: 'plugin', plugin: 'dsh-somni', form: 'recall' }, 'hint-1')), []);
  assert.deepEqual(m.map(user('AGENTS.md content', { kind: 'plugin', plugin: 'dsh-agent-instructions', form: 'instructions' })), []);
  assert.deepEqual(m.map(user('spoofed', { kind: 'user' }, 'hint-1')), []);
  assert.deepEqual(m.map(user('   ')), []);
  assert.deepEqual(m.map(assistant('')), []);
  /** @type {SessionEvent[]} */
  const bookkeeping = [
    { type: 'turn/start', seq: ++seq, time: 0, data: { turn: 1 } },
    turnEnd(),
    { type: 'step/start', seq: ++seq, time: 0, data: { turn: 1, step: 1 } },
    { type: 'request/header', seq: ++seq, time: 0, data: partial({}) },
    { type: 'assistant/chunk', seq: ++seq, time: 0, data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'x' } } },
  ];
  for (const e of bookkeeping) assert.deepEqual(m.map(e), [], e.type);
});

test('long messages are capped with a note; helpers', () => {
  const m = new SessionMapper('s1', 10, () => false);
  const [op] = m.map(user('0123456789ABCDEF'));
  assert.ok(op.method === 'session.append', op.method);
  assert.equal(op.params.text, '0123456789\n...(truncated, original 16 chars)');
  assert.equal(clip('short', 10, 'original'), 'short');
  assert.equal(clip('猫🐈猫🐈猫', 3, 'original'), '猫🐈猫\n...(truncated, original 5 chars)', 'counted in code points, like the sidecar');
  assert.equal(blocksText([{ type: 'text', text: 'a' }, partial({ type: 'image', attachment: {} }), partial({ type: 'tool-call', id: 'x', name: 'n', arguments: '{}' })]), 'a\n[image]');
  assert.equal(isSubagent({ origin: 'subagent' }), true);
  assert.equal(isSubagent({}), false);
  assert.equal(isSubagent(undefined), false);
});

test('capture buffers until turn/end, sends in order, skips subagents, and retries after a failure', async () => {
  /** @type {string[]} */
  const sent = [];
  let fail = false;
  /** @type {string[]} */
  const errors = [];
  const cap = new Capture(untimedCallDouble(async (/** @type {'session.append' | 'session.tool' | 'session.close'} */ method, params) => {
    if (fail) throw new Error('sidecar down');
    sent.push(`${method}:${'text' in params ? params.text : 'call' in params ? params.call : params.sessionId}`);
    return {};
  }), 4000, () => false, (e) => errors.push(e.message));
  /** @type {SessionHeader} */
  const header = partial({ id: 's1', createdAt: 0, version: 0 });
  cap.onEvent('s1', header, user('one'));
  cap.onEvent('s1', header, assistant('two'));
  cap.onEvent('sub', { ...header, origin: 'subagent' }, user('subagent words'));
  assert.deepEqual(sent, []);
  assert.equal(cap.pending('s1'), 2);
  assert.equal(cap.pending('sub'), 0);
  await cap.onEvent('s1', header, turnEnd());
  assert.deepEqual(sent, ['session.append:one', 'session.append:two']);
  fail = true;
  cap.onEvent('s1', header, user('three'));
  cap.onEvent('s1', header, user('four'));
  await cap.flush('s1');
  assert.deepEqual(errors, ['sidecar down']);
  assert.equal(cap.pending('s1'), 2, 'kept for the next flush');
  fail = false;
  cap.onEvent('s1', header, user('five'));
  await cap.close('s1');
  assert.deepEqual(sent, ['session.append:one', 'session.append:two', 'session.append:three', 'session.append:four', 'session.append:five', 'session.close:s1']);
});

test('tools the plugin asks to skip (dream_now) are not captured', () => {
  const m = new SessionMapper('s1', 4000, () => false, (name) => name === 'dream_now');
  assert.deepEqual(m.map(toolCall('d1', 'dream_now', '{}')), []);
  assert.deepEqual(m.map(toolResult('d1', 'Dream finished. learned things')), []);
  m.map(toolCall('b1', 'bash', '{}'));
  assert.equal(m.map(toolResult('b1', 'x')).length, 1);
});

test('a compaction checkpoint (the summary that replaces the shadowed span) is not captured again', async () => {
  /** @type {string[]} */
  const sent = [];
  const cap = new Capture(untimedCallDouble(async (method, params) => (sent.push('text' in params ? params.text : method), {})), 4000, () => false, () => {});
  await cap.onEvent('s1', partial({}), user('Our staging database is on port 5432.'));
  // What dsh-compaction-basic appends after the summary: a user-role message from the plugin `compact`,
  // whose text repeats the shadowed conversation. Capturing it would log the conversation twice.
  const checkpoint = user('This is an automatically generated checkpoint… <summary>staging database on port 5432</summary>', { kind: 'plugin', plugin: 'compact' });
  await cap.onEvent('s1', partial({}), checkpoint);
  await cap.onEvent('s1', partial({}), turnEnd());
  assert.deepEqual(sent, ['Our staging database is on port 5432.']);
});
