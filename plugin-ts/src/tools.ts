/**
 * The sidecar's work tools (`tools.list`) registered as harness tools, plus `dream_now`.
 * Results are plain text for the model; a down sidecar turns into a tool error, not a hang.
 */
import type { ContentBlock } from '@deepseek-ai/dsh-llm';
import type { JsonValue } from '@deepseek-ai/dsh-session';
import type { ToolDefinition, ToolRunContext } from '@deepseek-ai/dsh-tools';
import type { DreamScheduler } from './dream.js';
import type { CallOf, SidecarTool } from './methods.js';
import type { Json } from './rpc.js';

export { sanitizeSchema, toSidecarTools, type SidecarTool } from './methods.js';

/** Tools that change intentions: run one at a time and refresh the prompt afterwards. */
export const INTENTION_WRITERS: ReadonlySet<string> = new Set(['add_intention', 'complete_intention', 'cancel_intention']);

/** The tool name for a manual dream. */
export const DREAM_NOW = 'dream_now';

/** Read-only lookups may run in parallel with other calls. */
export function isReadOnlyTool(name: string): boolean {
  return /^(recall_|search_|list_)/.test(name);
}

const TEXT_OUTPUT = { type: 'string' as const, description: 'Markdown text for the model' };

function render(_args: unknown, value: JsonValue): ContentBlock[] {
  return [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }];
}

/** What a work tool needs at run time. */
export interface ToolDeps {
  call: CallOf<'tools.call'>;
  /** Called after an intention writer succeeded; awaited so the next step's prompt shows the change. */
  afterIntentionChange: () => Promise<unknown>;
}

/**
 * Builds the harness definition for one sidecar tool.
 * @param tool - the sidecar's description of it.
 * @param deps - sidecar access.
 */
export function workToolDefinition(tool: SidecarTool, deps: ToolDeps): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    output: { schema: TEXT_OUTPUT, render },
    timeoutMs: 35_000,
    isConcurrencySafe: () => isReadOnlyTool(tool.name),
    async execute(args: unknown, exec: ToolRunContext): Promise<string> {
      const a = typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, Json>) : {};
      const params = { name: tool.name, args: a, ...(exec.agent ? { sessionId: exec.agent.id } : {}) };
      const { result } = await deps.call('tools.call', params, 30_000, exec.signal);
      if (INTENTION_WRITERS.has(tool.name)) await deps.afterIntentionChange();
      return typeof result === 'string' ? result : JSON.stringify(result ?? '');
    },
  };
}

/** `dream_now`: consolidate recent conversations into long-term memory immediately. */
export function dreamNowDefinition(scheduler: Pick<DreamScheduler, 'runNow'>): ToolDefinition {
  return {
    name: DREAM_NOW,
    description:
      'Consolidate recent conversations into long-term memory now (a "dream"), when the user asks to remember or consolidate now. Can take minutes.',
    parameters: { type: 'object', properties: {} },
    output: { schema: TEXT_OUTPUT, render },
    timeoutMs: 30 * 60_000,
    isConcurrencySafe: () => false,
    async execute(): Promise<string> {
      const outcome = await scheduler.runNow('manual');
      if (outcome.status === 'error') throw new Error(outcome.text);
      return outcome.text;
    },
  };
}

/**
 * The sidecar's work tools by name (the Python sidecar's tool names, which prompts and skills in the
 * wild call), for when the sidecar never listed them: no binary for this platform, or it never came
 * up. Registered so a call gets a clear error instead of "unknown tool".
 */
export const WORK_TOOL_NAMES: readonly string[] = [
  'recall_memories',
  'search_knowledge',
  'search_episodes',
  'search_recent_conversation',
  'add_intention',
  'complete_intention',
  'cancel_intention',
  'list_intentions',
];

/**
 * A stand-in for one work tool while memory is off: any arguments, and every call fails with why.
 * @param name - tool name.
 * @param reason - the current reason memory is off (read at call time).
 */
export function unavailableToolDefinition(name: string, reason: () => string): ToolDefinition {
  return {
    name,
    description: 'Long-term memory tool (dsh-somni). Unavailable right now because memory is off; a call returns the reason.',
    parameters: { type: 'object', properties: {}, additionalProperties: true },
    output: { schema: TEXT_OUTPUT, render },
    isConcurrencySafe: () => true,
    async execute(): Promise<string> {
      throw new Error(`${name} is unavailable: ${reason()}`);
    },
  };
}
