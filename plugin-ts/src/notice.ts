/**
 * Degraded states said once where a user looks: each problem is logged once (host logger and
 * somni.log), and told once per session through the harness as a plugin notice.
 *
 * rc.8 has no toast or status service a plugin can post to; its documented channel for "a one-off
 * account of something that just happened" is a plugin-sourced user message with `form: 'notice'`
 * and a one-line `summary` (the transcript shows the summary as a collapsed row; the model reads the
 * text, so it can tell the user why memory tools fail). Other rc.8 plugins (repeat-tool-reminder,
 * plan-mode) use the same form. It is added in `agent/pre-step` after `next()`, only on `enter`, for
 * top-level agents, the way recall hints are.
 */
import { randomUUID } from 'node:crypto';
import type { Agent, PreStepDecision } from '@deepseek-ai/dsh-agent';
import type { MessageId } from '@deepseek-ai/dsh-llm';
import type { UserMessage } from '@deepseek-ai/dsh-session';
import { PLUGIN_NAME } from './assoc.js';
import { isSubagent } from './capture.js';
import { clip } from './clip.js';
import type { Problem } from './install.js';
import type { Log } from './sidecar.js';

/**
 * The harness's bound for a notice summary (CONTEXT_SUMMARY_MAX_CHARS in dsh-llm rc.8); repeated
 * here because the plugin imports nothing from the harness at run time.
 */
export const SUMMARY_MAX_CHARS = 120;

/** Cuts a summary to the harness's bound with an ellipsis. */
export function boundSummary(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return clip(one, SUMMARY_MAX_CHARS, 'ellipsisWithin');
}

/** Builds the notice message for a list of problems. */
export function noticeMessage(problems: readonly Problem[], logPath: string): UserMessage {
  const first = problems[0]!;
  const more = problems.length > 1 ? ` (+${problems.length - 1} more)` : '';
  const lines = [
    `[${PLUGIN_NAME}] Long-term memory notice for this session:`,
    ...problems.map((p) => `- ${p.message}`),
    `Details are in ${logPath}. Tell the user about this when it matters for what they ask (for example when a memory tool fails).`,
  ];
  return {
    id: randomUUID() as MessageId,
    role: 'user',
    content: [{ type: 'text', text: lines.join('\n') }],
    source: { kind: 'plugin', plugin: PLUGIN_NAME, form: 'notice', summary: boundSummary(`${PLUGIN_NAME}: ${first.summary}${more}`) },
  };
}

/** Problems seen so far, and which sessions were told which. */
export class Notices {
  private readonly problems = new Map<string, Problem>();
  private readonly told = new Map<string, Set<string>>();

  /**
   * @param log - where each problem is logged once (the tee to the host logger and somni.log).
   * @param ownMessageIds - ids of messages the plugin injected (capture skips them).
   * @param logPath - the log file named in the notice.
   */
  constructor(
    private readonly log: Log,
    private readonly ownMessageIds: Set<string>,
    private readonly logPath: string,
  ) {}

  /**
   * Records a problem. The same key with the same message is a no-op (a sidecar restarting into
   * the same degraded state is not news); a changed message is logged again but not re-noticed to
   * sessions that already heard about that key. `logged`: the caller logged it already.
   */
  report(problem: Problem, options: { logged?: boolean } = {}): void {
    const had = this.problems.get(problem.key);
    if (had && had.message === problem.message) return;
    this.problems.set(problem.key, problem);
    if (options.logged) return;
    if (problem.severity === 'off') this.log.error('%s', problem.message);
    else this.log.warn('%s', problem.message);
  }

  /**
   * Drops a problem that went away (a sidecar that failed to start came up): sessions that were not
   * told yet are not told. Sessions already told keep their notice; a later change is not re-told.
   */
  resolve(key: string): void {
    if (this.problems.delete(key)) this.log.info('resolved: %s', key);
  }

  /** Whether a problem with this key was reported. */
  has(key: string): boolean {
    return this.problems.has(key);
  }

  /** Every problem reported so far, in order. */
  list(): Problem[] {
    return [...this.problems.values()];
  }

  /**
   * The notice a session has not seen yet, marking its problems told; undefined when nothing is new.
   * @param sessionId - the top-level agent's session.
   */
  take(sessionId: string): UserMessage | undefined {
    let seen = this.told.get(sessionId);
    const fresh = [...this.problems.values()].filter((p) => !seen?.has(p.key));
    if (fresh.length === 0) return undefined;
    if (!seen) this.told.set(sessionId, (seen = new Set()));
    for (const p of fresh) seen.add(p.key);
    const msg = noticeMessage(fresh, this.logPath);
    this.ownMessageIds.add(msg.id);
    return msg;
  }

  /** Forgets a disposed session. */
  forget(sessionId: string): void {
    this.told.delete(sessionId);
  }

  /**
   * `agent/pre-step` listener body: the step is decided first; an entered top-level step gets the
   * session's pending notice appended. A decision shape this version does not know is left alone.
   */
  async preStep(payload: { agent: Agent }, next: () => Promise<PreStepDecision>): Promise<PreStepDecision> {
    const decision = await next();
    if (decision.kind !== 'enter' || !Array.isArray(decision.messages)) return decision;
    if (isSubagent(payload.agent.session?.header)) return decision;
    const msg = this.take(payload.agent.id);
    if (!msg) return decision;
    return { ...decision, messages: [...decision.messages, msg] };
  }
}
