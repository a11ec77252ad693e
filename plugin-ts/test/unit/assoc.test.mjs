import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Associator, admittedUserText } from '../../lib/assoc.js';

const agent = (origin) => ({ id: 'sess-1', session: { header: origin ? { origin } : {} } });
const userMsg = (text, kind = 'user') => ({ id: `m-${text}`, role: 'user', content: [{ type: 'text', text }], source: kind === 'user' ? { kind } : { kind: 'plugin', plugin: 'x' } });
const HINT = '【记忆提示】coffee-pref: oat milk (/m/coffee)';

function make(over = {}, reply = { hint: HINT, items: [{ name: 'coffee-pref' }] }) {
  const calls = [];
  const own = new Set();
  const a = new Associator({
    call: async (method, params, timeoutMs) => {
      calls.push({ method, params, timeoutMs });
      if (typeof reply === 'function') return reply(method, params);
      return reply;
    },
    ownTools: () => new Set(['recall_memories', 'dream_now']),
    ownMessageIds: own,
    preStep: true,
    postExecute: true,
    timeoutMs: 4000,
    onError: () => {},
    ...over,
  });
  return { a, calls, own };
}

test('pre-step: an entered step with user input gets one recall message after next()', async () => {
  const { a, calls, own } = make();
  const order = [];
  const msgs = [userMsg('coffee please')];
  const d = await a.preStep({ agent: agent(), messages: msgs, step: 1 }, async () => {
    order.push('next');
    return { kind: 'enter', messages: msgs };
  });
  assert.deepEqual(order, ['next']);
  assert.deepEqual(calls, [{ method: 'assoc.thought', params: { sessionId: 'sess-1', cue: 'coffee please', iterNo: 1 }, timeoutMs: 4000 }]);
  assert.equal(d.kind, 'enter');
  assert.equal(d.messages.length, 2);
  const hint = d.messages[1];
  assert.deepEqual(hint.source, { kind: 'plugin', plugin: 'dsh-somni', form: 'recall' });
  assert.deepEqual(hint.content, [{ type: 'text', text: HINT }]);
  assert.equal(hint.role, 'user');
  assert.ok(own.has(hint.id), 'hint id remembered so capture skips it');
});

test('pre-step gating: rejected steps, subagents, no user input, disabled, empty hint', async () => {
  const cases = [
    ['rejected', {}, agent(), [userMsg('coffee')], { kind: 'reject' }],
    ['subagent', {}, agent('subagent'), [userMsg('coffee')], null],
    ['no user input', {}, agent(), [userMsg('snapshot', 'plugin')], null],
    ['disabled', { preStep: false }, agent(), [userMsg('coffee')], null],
  ];
  for (const [name, over, ag, msgs, forced] of cases) {
    const { a, calls } = make(over);
    const decision = forced ?? { kind: 'enter', messages: msgs };
    const d = await a.preStep({ agent: ag, messages: msgs, step: 1 }, async () => decision);
    assert.equal(d, decision, `${name}: decision passed through untouched`);
    assert.equal(calls.length, 0, `${name}: sidecar not asked`);
  }
  const { a, calls } = make({}, { hint: '', items: [] });
  const decision = { kind: 'enter', messages: [userMsg('weather')] };
  assert.equal(await a.preStep({ agent: agent(), messages: [], step: 1 }, async () => decision), decision);
  assert.equal(calls.length, 1);
});

test('a failing or slow sidecar means no hint, not a failed step', async () => {
  const { a } = make({}, () => {
    throw new Error('assoc.thought: no reply within 4000 ms');
  });
  const decision = { kind: 'enter', messages: [userMsg('coffee')] };
  assert.equal(await a.preStep({ agent: agent(), messages: [], step: 1 }, async () => decision), decision);
});

test('post-execute: accepted foreign tool gets an additional context; own tools, blocks, errors and subagents do not', async () => {
  const bashExec = { callId: 'c1', name: 'bash', arguments: { command: 'make deploy' }, agent: agent() };
  const ok = { isError: false, value: 'done', content: [{ type: 'text', text: 'done' }] };
  {
    const { a, calls, own } = make();
    const existing = { id: 'x', role: 'user', content: [], source: { kind: 'plugin', plugin: 'other' } };
    const d = await a.postExecute(bashExec, ok, async () => ({ kind: 'accept', additionalContexts: [existing] }));
    assert.equal(d.kind, 'accept');
    assert.equal(d.additionalContexts.length, 2);
    assert.equal(d.additionalContexts[0], existing);
    assert.deepEqual(d.additionalContexts[1].content, [{ type: 'text', text: HINT }]);
    assert.ok(own.has(d.additionalContexts[1].id));
    assert.deepEqual(calls[0], { method: 'assoc.action', params: { sessionId: 'sess-1', toolName: 'bash', args: { command: 'make deploy' } }, timeoutMs: 4000 });
  }
  const skipped = [
    ['own tool', { ...bashExec, name: 'recall_memories' }, ok, { kind: 'accept' }, {}],
    ['dream_now', { ...bashExec, name: 'dream_now' }, ok, { kind: 'accept' }, {}],
    ['blocked', bashExec, ok, { kind: 'block', feedback: [] }, {}],
    ['tool error', bashExec, { isError: true, error: { message: 'x' }, content: [] }, { kind: 'accept' }, {}],
    ['subagent', { ...bashExec, agent: agent('subagent') }, ok, { kind: 'accept' }, {}],
    ['no agent', { ...bashExec, agent: undefined }, ok, { kind: 'accept' }, {}],
    ['disabled', bashExec, ok, { kind: 'accept' }, { postExecute: false }],
  ];
  for (const [name, exec, result, decision, over] of skipped) {
    const { a, calls } = make(over);
    assert.equal(await a.postExecute(exec, result, async () => decision), decision, name);
    assert.equal(calls.length, 0, `${name}: sidecar not asked`);
  }
});

test('admittedUserText takes the last user-sourced text', () => {
  assert.equal(admittedUserText([userMsg('first'), userMsg('ctx', 'plugin'), userMsg('second'), userMsg('ctx2', 'plugin')]), 'second');
  assert.equal(admittedUserText([userMsg('ctx', 'plugin')]), undefined);
});
