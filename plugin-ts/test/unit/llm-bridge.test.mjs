// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleChat, llmChatHandler, toGenerateOptions } from '../../lib/llm-bridge.js';
import { partial } from './doubles.mjs';

const route = { provider: 'deepseek-official', model: 'm1' };

/** @typedef {import('@deepseek-ai/dsh-llm').StreamChunk} StreamChunk */

/**
 * A host model stream yielding `list` (call ids as plain strings).
 * @param {import('./doubles.mjs').DeepPartial<StreamChunk>[]} list
 * @returns {AsyncIterable<StreamChunk>}
 */
async function* chunks(list) {
  for (const c of list) yield partial(c);
}

test('OpenAI messages map to GenerateOptions: system, user, assistant with tool calls, tool results, tools', () => {
  const opts = toGenerateOptions({
    messages: [
      { role: 'system', content: 'You are the dreamer.' },
      { role: 'system', content: [{ type: 'text', text: 'Second rule.' }] },
      { role: 'user', content: 'Read the log.' },
      { role: 'assistant', content: null, reasoning_content: 'thinking', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_session_log', arguments: '{"path":"a.md"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'log text' },
      { role: 'assistant', content: 'done' },
    ],
    tools: [{ type: 'function', function: { name: 'read_session_log', description: 'Read one log', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }],
  }, route);
  assert.equal(opts.provider, 'deepseek-official');
  assert.equal(opts.model, 'm1');
  assert.equal(opts.system, 'You are the dreamer.\n\nSecond rule.');
  assert.equal(opts.messages.length, 4);
  const [u, a, t, a2] = opts.messages;
  assert.equal(u.role, 'user');
  assert.deepEqual(u.content, [{ type: 'text', text: 'Read the log.' }]);
  assert.deepEqual(u.source, { kind: 'user' });
  assert.equal(a.role, 'assistant');
  assert.deepEqual(a.content, [
    { type: 'reasoning', text: 'thinking' },
    { type: 'tool-call', id: 'c1', name: 'read_session_log', arguments: '{"path":"a.md"}' },
  ]);
  assert.deepEqual(a.source, { kind: 'model', provider: 'deepseek-official', model: 'm1' });
  assert.equal(t.role, 'user');
  assert.deepEqual(t.content, [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'log text' }] }]);
  assert.deepEqual(t.source, { kind: 'tool', callId: 'c1' });
  assert.deepEqual(a2.content, [{ type: 'text', text: 'done' }]);
  assert.deepEqual(opts.tools, [{ name: 'read_session_log', description: 'Read one log', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }]);
  assert.notEqual(u.id, a.id);
});

test('malformed llm.chat params are rejected with a precise message', () => {
  /** @type {[import('../../lib/rpc.js').Json, RegExp][]} */
  const cases = [
    [{}, /messages must be an array/],
    [{ messages: [{ content: 'x' }] }, /messages\[0\] has no role/],
    [{ messages: [{ role: 'robot', content: 'x' }] }, /unknown role "robot"/],
    [{ messages: [{ role: 'tool', content: 'x' }] }, /no tool_call_id/],
    [{ messages: [{ role: 'assistant', content: '', tool_calls: [{ function: {} }] }] }, /tool_calls\[0\] needs id/],
    [{ messages: [], tools: [{ type: 'function' }] }, /tools\[0\] needs function.name/],
  ];
  for (const [params, re] of cases) assert.throws(() => toGenerateOptions(params, route), re);
});

test('chunk stream assembles into message, tool calls, reasoning and usage', async () => {
  const r = await assembleChat(chunks([
    { type: 'block-start', index: 0, blockType: 'reasoning' },
    { type: 'reasoning-delta', index: 0, text: 'hmm' },
    { type: 'block-end', index: 0, block: { type: 'reasoning', text: 'hmm' } },
    { type: 'block-start', index: 1, blockType: 'text' },
    { type: 'text-delta', index: 1, text: 'Hel' },
    { type: 'text-delta', index: 1, text: 'lo' },
    { type: 'block-end', index: 1, block: { type: 'text', text: 'Hello' } },
    { type: 'block-start', index: 2, blockType: 'tool-call' },
    { type: 'tool-call-delta', index: 2, id: 'k1', name: 'create_knowledge', argumentsDelta: '{"na' },
    { type: 'tool-call-delta', index: 2, id: 'k1', argumentsDelta: 'me":"x"}' },
    { type: 'block-end', index: 2, block: { type: 'tool-call', id: 'k1', name: 'create_knowledge', arguments: '{"name":"x"}' } },
    { type: 'usage', usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 64 } },
    { type: 'finish', reason: { kind: 'tool-calls' } },
  ]));
  assert.deepEqual(r, {
    message: { role: 'assistant', content: 'Hello', reasoning_content: 'hmm', tool_calls: [{ id: 'k1', type: 'function', function: { name: 'create_knowledge', arguments: '{"name":"x"}' } }] },
    usage: { prompt_tokens: 100, completion_tokens: 20, cached_tokens: 64 },
    finish_reason: 'tool_calls',
  });
});

test('deltas are the fallback when a block never ends; max-tokens maps to length', async () => {
  const r = await assembleChat(chunks([
    { type: 'text-delta', index: 0, text: 'part' },
    { type: 'text-delta', index: 0, text: 'ial' },
    { type: 'tool-call-delta', index: 1, id: 'k2', name: 'archive_item', argumentsDelta: '{}' },
    { type: 'finish', reason: { kind: 'max-tokens' } },
  ]));
  assert.equal(r.message.content, 'partial');
  assert.deepEqual(r.message.tool_calls, [{ id: 'k2', type: 'function', function: { name: 'archive_item', arguments: '{}' } }]);
  assert.equal(r.finish_reason, 'length');
  assert.deepEqual(r.usage, { prompt_tokens: 0, completion_tokens: 0 });
});

test('an error finish or a stream without finish is an error', async () => {
  await assert.rejects(assembleChat(chunks([
    { type: 'text-delta', index: 0, text: 'x' },
    { type: 'finish', reason: { kind: 'error', failure: { message: 'rate limited', code: 'RATE_LIMIT' } } },
  ])), /host model error: rate limited \(RATE_LIMIT\)/);
  await assert.rejects(assembleChat(chunks([{ type: 'finish', reason: { kind: 'aborted', failure: { message: 'stop', code: 'ABORTED' } } }])), /aborted/);
  await assert.rejects(assembleChat(chunks([{ type: 'text-delta', index: 0, text: 'x' }])), /without a finish/);
});

test('handler routes through the host stream with the current selection and the signal', async () => {
  /** @type {import('@deepseek-ai/dsh-llm').GenerateOptions | undefined} */
  let seen;
  const h = llmChatHandler({
    route: () => ({ provider: 'p', model: 'current' }),
    stream: (o) => {
      seen = o;
      return chunks([{ type: 'text-delta', index: 0, text: 'ok' }, { type: 'finish', reason: { kind: 'stop' } }]);
    },
  });
  const ac = new AbortController();
  const r = await h({ messages: [{ role: 'user', content: 'hi' }] }, ac.signal);
  assert.deepEqual(r, { message: { role: 'assistant', content: 'ok' }, usage: { prompt_tokens: 0, completion_tokens: 0 }, finish_reason: 'stop' });
  assert.ok(seen);
  assert.equal(seen.model, 'current');
  assert.equal(seen.signal, ac.signal);
  assert.equal(seen.tools, undefined);
  assert.equal(seen.system, undefined);
});
