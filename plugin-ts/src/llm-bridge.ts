/**
 * The sidecar's reverse `llm.chat` answered with the harness's own model: OpenAI-shaped chat
 * messages and function tools are converted to `ctx.llm.stream` options, and the chunk stream is
 * assembled back into one OpenAI-shaped assistant message with usage.
 */
import { randomUUID } from 'node:crypto';
import type {
  AssistantMessage,
  CallId,
  ContentBlock,
  GenerateOptions,
  Message,
  MessageId,
  StreamChunk,
  ToolResultMessage,
  ToolSchema,
  UserMessage,
} from '@deepseek-ai/dsh-llm';
import type { Json } from './rpc.js';

/** OpenAI-style tool call as carried in `llm.chat`. */
export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** OpenAI-style chat message (the subset the dreamer sends). */
export interface OpenAiMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: OpenAiToolCall[];
  tool_call_id?: string;
  reasoning_content?: string;
}

/** `llm.chat` result. */
export interface ChatResult {
  message: { role: 'assistant'; content: string; tool_calls?: OpenAiToolCall[]; reasoning_content?: string };
  usage: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
  finish_reason: 'stop' | 'tool_calls' | 'length';
}

/** Where model calls go: the current default provider/model. */
export interface ModelRoute {
  provider: string;
  model: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Extracts plain text from an OpenAI `content`, which may be a string or an array of parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
      .filter((s) => s !== '')
      .join('\n');
  }
  return '';
}

const msgId = (): MessageId => randomUUID() as MessageId;

/**
 * Converts `llm.chat` params into `GenerateOptions` (without signal), validating shapes.
 * @param params - `{messages, tools?}` from the sidecar.
 * @param route - provider/model to use.
 * @throws Error with a precise message on malformed params.
 */
export function toGenerateOptions(params: Json, route: ModelRoute): GenerateOptions {
  if (!isRecord(params) || !Array.isArray(params.messages)) throw new Error('llm.chat: params.messages must be an array');
  const system: string[] = [];
  const messages: Message[] = [];
  params.messages.forEach((raw, i) => {
    if (!isRecord(raw) || typeof raw.role !== 'string') throw new Error(`llm.chat: messages[${i}] has no role`);
    const text = contentText(raw.content);
    switch (raw.role) {
      case 'system':
        if (text) system.push(text);
        return;
      case 'user': {
        const m: UserMessage = { id: msgId(), role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } };
        messages.push(m);
        return;
      }
      case 'assistant': {
        const content: ContentBlock[] = [];
        if (typeof raw.reasoning_content === 'string' && raw.reasoning_content) content.push({ type: 'reasoning', text: raw.reasoning_content });
        if (text) content.push({ type: 'text', text });
        if (raw.tool_calls !== undefined && raw.tool_calls !== null) {
          if (!Array.isArray(raw.tool_calls)) throw new Error(`llm.chat: messages[${i}].tool_calls must be an array`);
          raw.tool_calls.forEach((tc, j) => {
            const fn = isRecord(tc) && isRecord(tc.function) ? tc.function : undefined;
            if (!isRecord(tc) || typeof tc.id !== 'string' || !fn || typeof fn.name !== 'string') {
              throw new Error(`llm.chat: messages[${i}].tool_calls[${j}] needs id and function.name`);
            }
            const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
            content.push({ type: 'tool-call', id: tc.id as CallId, name: fn.name, arguments: args });
          });
        }
        const m: AssistantMessage = {
          id: msgId(),
          role: 'assistant',
          content,
          source: { kind: 'model', provider: route.provider, model: route.model },
        };
        messages.push(m);
        return;
      }
      case 'tool': {
        if (typeof raw.tool_call_id !== 'string' || raw.tool_call_id === '') throw new Error(`llm.chat: messages[${i}] (tool) has no tool_call_id`);
        const callId = raw.tool_call_id as CallId;
        const m: ToolResultMessage = {
          id: msgId(),
          role: 'user',
          content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }] }],
          source: { kind: 'tool', callId },
        };
        messages.push(m);
        return;
      }
      default:
        throw new Error(`llm.chat: messages[${i}] has unknown role ${JSON.stringify(raw.role)}`);
    }
  });
  const tools: ToolSchema[] = [];
  if (params.tools !== undefined && params.tools !== null) {
    if (!Array.isArray(params.tools)) throw new Error('llm.chat: params.tools must be an array');
    params.tools.forEach((t, i) => {
      const fn = isRecord(t) && isRecord(t.function) ? t.function : undefined;
      if (!fn || typeof fn.name !== 'string') throw new Error(`llm.chat: tools[${i}] needs function.name`);
      tools.push({
        name: fn.name,
        description: typeof fn.description === 'string' ? fn.description : '',
        parameters: isRecord(fn.parameters) ? fn.parameters : { type: 'object', properties: {} },
      });
    });
  }
  const opts: GenerateOptions = { provider: route.provider, model: route.model, messages };
  if (system.length > 0) opts.system = system.join('\n\n');
  if (tools.length > 0) opts.tools = tools;
  return opts;
}

interface Partial {
  type: 'text' | 'reasoning' | 'tool-call' | 'other';
  text: string;
  id?: string;
  name?: string;
  args: string;
  done?: ContentBlock;
}

/**
 * Assembles a chunk stream into an OpenAI-shaped assistant message. Completed blocks (`block-end`)
 * win; deltas are the fallback for blocks whose end never arrived. A finish chunk of kind error or
 * aborted becomes a thrown Error (the sidecar reports it as the dream's error).
 * @param chunks - the stream from `ctx.llm.stream`.
 */
export async function assembleChat(chunks: AsyncIterable<StreamChunk>): Promise<ChatResult> {
  const blocks = new Map<number, Partial>();
  const get = (index: number, type: Partial['type']): Partial => {
    let b = blocks.get(index);
    if (!b) {
      b = { type, text: '', args: '' };
      blocks.set(index, b);
    }
    return b;
  };
  let usage: ChatResult['usage'] = { prompt_tokens: 0, completion_tokens: 0 };
  let finish: ChatResult['finish_reason'] | undefined;
  for await (const c of chunks) {
    switch (c.type) {
      case 'block-start': {
        const t = c.blockType;
        get(c.index, t === 'text' || t === 'reasoning' || t === 'tool-call' ? t : 'other');
        break;
      }
      case 'text-delta':
        get(c.index, 'text').text += c.text;
        break;
      case 'reasoning-delta':
        get(c.index, 'reasoning').text += c.text;
        break;
      case 'tool-call-delta': {
        const b = get(c.index, 'tool-call');
        b.id = c.id;
        if (c.name) b.name = c.name;
        b.args += c.argumentsDelta;
        break;
      }
      case 'block-end':
        get(c.index, c.block.type === 'text' || c.block.type === 'reasoning' || c.block.type === 'tool-call' ? c.block.type : 'other').done = c.block;
        break;
      case 'usage':
        usage = { prompt_tokens: c.usage.inputTokens, completion_tokens: c.usage.outputTokens };
        if (c.usage.cacheReadTokens !== undefined) usage.cached_tokens = c.usage.cacheReadTokens;
        break;
      case 'finish': {
        const r = c.reason;
        if (r.kind === 'error' || r.kind === 'aborted') {
          throw new Error(`host model ${r.kind}: ${r.failure.message} (${r.failure.code})`);
        }
        finish = r.kind === 'tool-calls' ? 'tool_calls' : r.kind === 'max-tokens' ? 'length' : 'stop';
        break;
      }
    }
  }
  if (finish === undefined) throw new Error('host model stream ended without a finish chunk');
  const text: string[] = [];
  const reasoning: string[] = [];
  const calls: OpenAiToolCall[] = [];
  for (const index of [...blocks.keys()].sort((a, b) => a - b)) {
    const b = blocks.get(index)!;
    const done = b.done;
    if (done?.type === 'text' || (!done && b.type === 'text')) text.push(done?.type === 'text' ? done.text : b.text);
    else if (done?.type === 'reasoning' || (!done && b.type === 'reasoning')) reasoning.push(done?.type === 'reasoning' ? done.text : b.text);
    else if (done?.type === 'tool-call') calls.push({ id: done.id, type: 'function', function: { name: done.name, arguments: done.arguments } });
    else if (!done && b.type === 'tool-call' && b.id && b.name) calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: b.args } });
  }
  const message: ChatResult['message'] = { role: 'assistant', content: text.join('') };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('');
  return { message, usage, finish_reason: finish };
}

/** What the bridge needs from the host. */
export interface BridgeHost {
  stream(options: GenerateOptions): AsyncIterable<StreamChunk>;
  route(): ModelRoute;
}

/**
 * Builds the `llm.chat` handler.
 * @param host - `ctx.llm.stream` and `ctx.agentDefaultModel.currentSelection()`.
 */
export function llmChatHandler(host: BridgeHost): (params: Json, signal: AbortSignal) => Promise<Json> {
  return async (params, signal) => {
    const options = toGenerateOptions(params, host.route());
    options.signal = signal;
    const result = await assembleChat(host.stream(options));
    return result as unknown as Json;
  };
}
