/**
 * Associative recall hints: after the user speaks (`agent/pre-step`) or a tool ran
 * (`tools/post-execute`), ask the sidecar whether a memory fits, and if so add one plugin-sourced
 * user message with the `【记忆提示】` hint. A slow or absent sidecar means no hint, never a stuck turn.
 */
import { randomUUID } from 'node:crypto';
import type { Agent, PreStepDecision } from '@deepseek-ai/dsh-agent';
import type { MessageId } from '@deepseek-ai/dsh-llm';
import type { UserMessage } from '@deepseek-ai/dsh-session';
import type { PostToolDecision, ToolExecution, ToolExecutionResult } from '@deepseek-ai/dsh-tools';
import { blocksText, isSubagent } from './capture.js';
import type { CallOf, ParamsOf } from './methods.js';
import type { Json } from './rpc.js';

/** Plugin name used in message sources. */
export const PLUGIN_NAME = 'dsh-somni';

/** How the hint logic reaches the sidecar and its settings. */
export interface AssocDeps {
  call: CallOf<'assoc.thought' | 'assoc.action'>;
  /** Names of the plugin's own tools (never trigger hints). */
  ownTools: () => ReadonlySet<string>;
  /** Remembers the ids of messages the plugin injected, so capture skips them. */
  ownMessageIds: Set<string>;
  preStep: boolean;
  postExecute: boolean;
  timeoutMs: number;
  onError: (err: Error) => void;
}

/** Builds the plugin's recall message carrying one hint. */
export function hintMessage(hint: string): UserMessage {
  return {
    id: randomUUID() as MessageId,
    role: 'user',
    content: [{ type: 'text', text: hint }],
    source: { kind: 'plugin', plugin: PLUGIN_NAME, form: 'recall' },
  };
}

/** The text the person just said in this step's admitted messages, if any (last one wins). */
export function admittedUserText(messages: readonly UserMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.source.kind === 'user') {
      const t = blocksText(m.content).trim();
      if (t) return t;
    }
  }
  return undefined;
}

/** Hint logic for both hooks. */
export class Associator {
  constructor(private readonly deps: AssocDeps) {}

  /**
   * `agent/pre-step` listener body: lets the step be decided first, and only for an entered
   * top-level step with fresh user input appends a hint message.
   */
  async preStep(payload: { agent: Agent; messages: UserMessage[]; step: number }, next: () => Promise<PreStepDecision>): Promise<PreStepDecision> {
    const decision = await next();
    if (!this.deps.preStep || decision.kind !== 'enter') return decision;
    if (isSubagent(payload.agent.session.header)) return decision;
    const cue = admittedUserText(decision.messages);
    if (!cue) return decision;
    const hint = await this.ask('assoc.thought', { sessionId: payload.agent.id, cue, iterNo: payload.step });
    if (!hint) return decision;
    const msg = hintMessage(hint);
    this.deps.ownMessageIds.add(msg.id);
    return { kind: 'enter', messages: [...decision.messages, msg] };
  }

  /** `tools/post-execute` listener body: on an accepted result of a foreign tool, adds a hint context. */
  async postExecute(exec: ToolExecution, result: Readonly<ToolExecutionResult>, next: () => Promise<PostToolDecision>): Promise<PostToolDecision> {
    const decision = await next();
    if (!this.deps.postExecute || decision.kind !== 'accept') return decision;
    const agent = exec.agent;
    if (!agent || isSubagent(agent.session.header)) return decision;
    if (this.deps.ownTools().has(exec.name) || result.isError) return decision;
    const args = typeof exec.arguments === 'object' && exec.arguments !== null && !Array.isArray(exec.arguments) ? (exec.arguments as Record<string, Json>) : {};
    const hint = await this.ask('assoc.action', { sessionId: agent.id, toolName: exec.name, args });
    if (!hint) return decision;
    const msg = hintMessage(hint);
    this.deps.ownMessageIds.add(msg.id);
    return { ...decision, additionalContexts: [...(decision.additionalContexts ?? []), msg] };
  }

  /** Asks the sidecar; any failure or timeout is "no hint". */
  private async ask<M extends 'assoc.thought' | 'assoc.action'>(method: M, params: ParamsOf<M>): Promise<string> {
    try {
      return (await this.deps.call(method, params, this.deps.timeoutMs)).hint;
    } catch (err) {
      this.deps.onError(err as Error);
      return '';
    }
  }
}

/** Extracts text from a tool result for diagnostics. */
export function resultText(result: Readonly<ToolExecutionResult>): string {
  return blocksText(result.content);
}
