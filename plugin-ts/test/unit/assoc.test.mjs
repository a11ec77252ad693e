// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Associator, admittedUserText } from '../../lib/assoc.js';
import { agentDouble, callDouble, partial } from './doubles.mjs';
import { enteredMessages } from './helpers.mjs';

/** @typedef {import('@deepseek-ai/dsh-session').UserMessage} UserMessage */
/** @typedef {import('@deepseek-ai/dsh-agent').PreStepDecision} PreStepDecision */
/** @typedef {import('@deepseek-ai/dsh-tools').PostToolDecision} PostToolDecision */
/** @typedef {import('@deepseek-ai/dsh-tools').ToolExecution} ToolExecution */
/** @typedef {import('@deepseek-ai/dsh-tools').ToolExecutionResult} ToolExecutionResult */
/** @typedef {import('../../lib/assoc.js').AssocDeps} AssocDeps */
/** @typedef {'assoc.thought' | 'assoc.action'} AssocMethod */
/** @typedef {import('../../lib/methods.js').ResultOf<AssocMethod>} AssocReply */

/** @param {'subagent'} [origin] */
const agent = (origin) => agentDouble('sess-1', origin);
/**
 * @param {string} text
 * @returns {UserMessage}
 */
const userMsg = (text, kind = 'user') => partial({ id: `m-${text}`, role: 'user', content: [{ type: 'text', text }], source: kind === 'user' ? { kind: 'user' } : { kind: 'plugin', plugin: 'x' } });
const HINT = '【记忆提示】coffee-pref: oat milk (/m/coffee)';

/**
 * @param {Partial<AssocDeps>} [over]
 * @param {AssocReply & { items?: { name: string }[] } | ((method: AssocMethod, params: unknown) => AssocReply)} [reply] - the sidecar's reply, or a function giving (or throwing) it.
 */
function make(over = {}, reply = { hint: HINT, items: [{ name: 'coffee-pref' }] }) {
  /** @type {{ method: AssocMethod, params: unknown, timeoutMs: number }[]} */
  const calls = [];
  /** @type {Set<string>} */
  const own = new Set();
  const a = new Associator({
    call: callDouble(async (/** @type {AssocMethod} */ method, params, timeoutMs) => {
      calls.push({ method, params, timeoutMs });
      if (typeof reply === 'function') return reply(method, params);
      return reply;
    }),
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
  /** @type {string[]} */
  const order = [];
  const msgs = [userMsg('coffee please')];
  const d = await a.preStep({ agent: agent(), messages: msgs, step: 1 }, async () => {
    order.push('next');
    return { kind: 'enter', messages: msgs };
  });
  assert.deepEqual(order, ['next']);
  assert.deepEqual(calls, [{ method: 'assoc.thought', params: { sessionId: 'sess-1', cue: 'coffee please', iterNo: 1 }, timeoutMs: 4000 }]);
  const entered = enteredMessages(d);
  assert.equal(entered.length, 2);
  const hint = entered[1];
  assert.deepEqual(hint.source, { kind: 'plugin', plugin: 'dsh-somni', form: 'recall' });
  assert.deepEqual(hint.content, [{ type: 'text', text: HINT }]);
  assert.equal(hint.role, 'user');
  assert.ok(own.has(hint.id), 'hint id remembered so capture skips it');
});

test('pre-step gating: rejected steps, subagents, no user input, disabled, empty hint', async () => {
  /** @type {[string, Partial<AssocDeps>, import('@deepseek-ai/dsh-agent').Agent, UserMessage[], PreStepDecision | null][]} */
  const cases = [
    ['rejected', {}, agent(), [userMsg('coffee')], { kind: 'reject' }],
    ['subagent', {}, agent('subagent'), [userMsg('coffee')], null],
    ['no user input', {}, agent(), [userMsg('snapshot', 'plugin')], null],
    ['disabled', { preStep: false }, agent(), [userMsg('coffee')], null],
  ];
  for (const [name, over, ag, msgs, forced] of cases) {
    const { a, calls } = make(over);
    /** @type {PreStepDecision} */
    const decision = forced ?? { kind: 'enter', messages: msgs };
    const d = await a.preStep({ agent: ag, messages: msgs, step: 1 }, async () => decision);
    assert.equal(d, decision, `${name}: decision passed through untouched`);
    assert.equal(calls.length, 0, `${name}: sidecar not asked`);
  }
  const { a, calls } = make({}, { hint: '', items: [] });
  /** @type {PreStepDecision} */
  const decision = { kind: 'enter', messages: [userMsg('weather')] };
  assert.equal(await a.preStep({ agent: agent(), messages: [], step: 1 }, async () => decision), decision);
  assert.equal(calls.length, 1);
});

test('a failing or slow sidecar means no hint, not a failed step', async () => {
  const { a } = make({}, () => {
    throw new Error('assoc.thought: no reply within 4000 ms');
  });
  /** @type {PreStepDecision} */
  const decision = { kind: 'enter', messages: [userMsg('coffee')] };
  assert.equal(await a.preStep({ agent: agent(), messages: [], step: 1 }, async () => decision), decision);
});

test('post-execute: accepted foreign tool gets an additional context; own tools, blocks, errors and subagents do not', async () => {
  /** @type {Omit<ToolExecution, 'agent'>} */
  const call = partial({ callId: 'c1', name: 'bash', arguments: { command: 'make deploy' } });
  /** @type {ToolExecution} */
  const bashExec = { ...call, agent: agent() };
  /** @type {ToolExecutionResult} */
  const ok = { isError: false, value: 'done', content: [{ type: 'text', text: 'done' }] };
  {
    const { a, calls, own } = make();
    /** @type {UserMessage} */
    const existing = partial({ id: 'x', role: 'user', content: [], source: { kind: 'plugin', plugin: 'other' } });
    const d = await a.postExecute(bashExec, ok, async () => ({ kind: 'accept', additionalContexts: [existing] }));
    assert.ok(d.kind === 'accept' && d.additionalContexts, 'accepted with contexts');
    assert.equal(d.additionalContexts.length, 2);
    assert.equal(d.additionalContexts[0], existing);
    assert.deepEqual(d.additionalContexts[1].content, [{ type: 'text', text: HINT }]);
    assert.ok(own.has(d.additionalContexts[1].id));
    assert.deepEqual(calls[0], { method: 'assoc.action', params: { sessionId: 'sess-1', toolName: 'bash', args: { command: 'make deploy' } }, timeoutMs: 4000 });
  }
  /** @type {[string, ToolExecution, ToolExecutionResult, PostToolDecision, Partial<AssocDeps>][]} */
  const skipped = [
    ['own tool', { ...bashExec, name: 'recall_memories' }, ok, { kind: 'accept' }, {}],
    ['dream_now', { ...bashExec, name: 'dream_now' }, ok, { kind: 'accept' }, {}],
    ['blocked', bashExec, ok, { kind: 'block', feedback: [] }, {}],
    ['tool error', bashExec, { isError: true, error: partial({ message: 'x' }), content: [] }, { kind: 'accept' }, {}],
    ['subagent', { ...bashExec, agent: agent('subagent') }, ok, { kind: 'accept' }, {}],
    ['no agent', call, ok, { kind: 'accept' }, {}],
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
