/**
 * Memory across compaction. When the harness compacts a session, the shadowed messages leave the
 * model's view for good; whatever the native summary drops is gone unless somni brings it back. So:
 *
 * - The summary call (`llm/stream` with `purpose: 'compaction'`) is decorated: the native summary
 *   streams through untouched and somni's digest of the session (corrected facts, open intentions with
 *   their ids) is appended as one more text block. The checkpoint then carries pointers into memory
 *   that the model can follow with the memory tools. The digest is asked for when the call starts, so
 *   it is ready by the time the native summary ends; a sidecar that is down or slow costs nothing but
 *   the block.
 * - After a compaction the session's hint habituation is reset: the hints it already showed were in
 *   the shadowed part, which the model no longer sees.
 * - Optionally (`dream.napOnCompaction`) the session naps: its log so far is dreamt over at once, so
 *   what it taught becomes memory while the session still runs, instead of waiting for an idle dream.
 *
 * Only ever decorates: every hook calls `next()` first, and the native summary is never replaced.
 */
import type { Agent } from '@deepseek-ai/dsh-agent';
import type { GenerateOptions, Message, StreamChunk } from '@deepseek-ai/dsh-llm';
import type { SessionEvent, SessionHeader } from '@deepseek-ai/dsh-session';
import { blocksText, isSubagent } from './capture.js';
import { clip } from './clip.js';
import { withTimeout } from './deadlines.js';
import type { DreamOutcome } from './dream.js';
import type { SessionMemoryEvent } from './memory-wire.js';
import type { CallOf } from './methods.js';

/** How many carried-memory events a session keeps (the newest), and how many sessions are kept. */
export const CARRIED_PER_SESSION = 20;
export const CARRIED_SESSIONS = 64;

/**
 * Upper bound on the digest block, in characters (about 400 tokens). The digest is pointers into
 * memory, not a copy of it: a short block keeps the checkpoint about the conversation, which is what
 * the native summary is for.
 */
export const DIGEST_MAX_CHARS = 1600;
/**
 * The digest may take at most this share (1/N) of the text it helps to shadow. The harness rejects a
 * compaction whose framed summary (a fixed ~330-char preamble, the native summary, our block) is not
 * smaller than the shadowed content, and a rejected compaction loses the native summary too; a quarter
 * leaves the native summary and the preamble the rest.
 */
export const DIGEST_SHARE_DIVISOR = 4;
/** Below this a digest cannot carry one fact with its citation: ask for none. */
export const DIGEST_MIN_CHARS = 200;

/**
 * How many characters the digest may have for a summary call over `messages`: min(DIGEST_MAX_CHARS,
 * a quarter of their text), or 0 (no digest). A trailing plugin-authored user message is the
 * compaction instruction the backend appended, not shadowed content, so it is not counted.
 */
export function digestBudget(messages: readonly Message[]): number {
  let shadowed = messages;
  const last = messages[messages.length - 1];
  if (last && last.role === 'user' && last.source.kind === 'plugin') shadowed = messages.slice(0, -1);
  let chars = 0;
  for (const m of shadowed) chars += blocksText(m.content).length;
  const budget = Math.min(DIGEST_MAX_CHARS, Math.floor(chars / DIGEST_SHARE_DIVISOR));
  return budget >= DIGEST_MIN_CHARS ? budget : 0;
}

/**
 * Re-yields `native` chunk for chunk and, right before its final `finish`, one text block carrying the
 * digest, on a block index the native stream did not use. Nothing is added when the digest is empty
 * (or never came), when the native call did not finish with `stop` (a failed or truncated summary
 * must fail as it would have), or when it produced no text of its own (the block would then be the
 * whole summary, replacing the native one).
 * @param digest - settles with the text to add ('' or undefined for none); awaited only at the finish.
 * @param added - told the text once the block is in the summary.
 */
export async function* withDigestBlock(native: AsyncIterable<StreamChunk>, digest: Promise<string | undefined>, added?: (text: string) => void): AsyncGenerator<StreamChunk> {
  let maxIndex = -1;
  let nativeText = false;
  for await (const chunk of native) {
    if (chunk.type === 'finish' && chunk.reason.kind === 'stop' && nativeText) {
      const text = await digest;
      if (text) {
        const index = maxIndex + 1;
        yield { type: 'block-start', index, blockType: 'text' };
        yield { type: 'text-delta', index, text };
        yield { type: 'block-end', index, block: { type: 'text', text } };
        added?.(text);
      }
    }
    if ('index' in chunk) maxIndex = Math.max(maxIndex, chunk.index);
    if (chunk.type === 'block-end' && chunk.block.type === 'text' && chunk.block.text.trim() !== '') nativeText = true;
    yield chunk;
  }
}

/** The session id a summary call carries (the harness's branded string). */
type SessionId = NonNullable<GenerateOptions['sessionId']>;

/** The `compaction/end` payload, as far as it is read here (see {@link compactionEnd}). */
interface CompactionEnd {
  compactionId: string;
  error?: string;
}

/**
 * The payload of a `compaction/end` event, or undefined for any other event. The compaction events
 * are declared by `@deepseek-ai/dsh-compaction` (its types.d.ts), which the plugin does not depend on:
 * the plugin works with any compaction backend or none, so only the two fields it reads are checked.
 */
function compactionEnd(event: SessionEvent): CompactionEnd | undefined {
  const e: { type: string; data: unknown } = event;
  if (e.type !== 'compaction/end' || typeof e.data !== 'object' || e.data === null) return undefined;
  const d = e.data as Record<string, unknown>;
  if (typeof d.compactionId !== 'string') return undefined;
  return { compactionId: d.compactionId, ...(typeof d.error === 'string' ? { error: d.error } : {}) };
}

/** What {@link CompactionMemory} needs from the plugin. */
export interface CompactionDeps {
  call: CallOf<'session.digest' | 'assoc.reset'>;
  /** The live agent of a session id (rc.8: one id shared by the agent registry and the session log). */
  agentOf: (sessionId: SessionId) => Pick<Agent, 'session'> | undefined;
  /**
   * Sends what capture holds for a session. The digest is read from the session's log, and a compaction
   * on context overflow happens mid-turn, before the turn's own messages were flushed.
   */
  flush: (sessionId: string) => Promise<void>;
  /** How long the summary waits for the digest (from when the call started), the flush included. */
  digestMs: number;
  /** Deadline of the background `assoc.reset`. */
  backgroundMs: number;
  /** Naps one session (flush its capture, dream over its log); undefined when napping is off. */
  nap?: (sessionId: string) => Promise<DreamOutcome>;
  log: { info(f: string, ...a: unknown[]): void; debug(f: string, ...a: unknown[]): void };
}

/**
 * The compaction hooks' state: the naps in progress, and what memory each session's compactions
 * carried (for the tab's "This session" view; this process only, like the session's turns).
 */
export class CompactionMemory {
  private readonly naps = new Set<Promise<unknown>>();
  /** The block a summary call added, by session, until its compaction ends. */
  private readonly added = new Map<string, string>();
  /** Compactions that ended with the block in their summary, by session (oldest first; insertion order is recency). */
  private readonly carriedBy = new Map<string, SessionMemoryEvent[]>();

  constructor(private readonly deps: CompactionDeps) {}

  /**
   * The `llm/stream` listener: a compaction call of a main session gets the digest block; anything
   * else is `next()` as it is.
   */
  stream(options: GenerateOptions, next: () => AsyncIterable<StreamChunk>): AsyncIterable<StreamChunk> {
    const native = next();
    const sessionId = options.sessionId;
    if (options.purpose !== 'compaction' || !sessionId) return native;
    if (isSubagent(this.headerOf(sessionId))) return native;
    const maxChars = digestBudget(options.messages);
    if (maxChars === 0) return native;
    const started = Date.now();
    const asked = this.deps.flush(sessionId).then(() => this.deps.call('session.digest', { sessionId, maxChars }, this.deps.digestMs, options.signal));
    const digest = withTimeout(asked, this.deps.digestMs).then((d) => {
      if (!d) {
        this.deps.log.info('compaction of %s: no memory digest (the sidecar failed or did not answer within %d ms)', sessionId, this.deps.digestMs);
        return undefined;
      }
      this.deps.log.info('compaction of %s: memory digest of %d chars (budget %d; %d intentions, %d memories, %d statements) in %d ms',
        sessionId, d.text.length, maxChars, d.intentions, d.memories, d.statements, Date.now() - started);
      // The budget is what keeps the compaction from being rejected: held even if the sidecar overshoots.
      const text = clip(d.text.trim(), maxChars - 2, 'ellipsisWithin');
      // The harness joins a summary's text blocks as they are: without a break the block would run on
      // from the native summary's last sentence.
      return text ? `\n\n${text}` : '';
    });
    return withDigestBlock(native, digest, (text) => this.added.set(sessionId, text.trim()));
  }

  /**
   * The compactions of a session that carried memory into their summary, as the tab's session events
   * (kind `compaction`; `text` is the block the summary kept), newest first.
   */
  carried(sessionId: string): SessionMemoryEvent[] {
    return [...(this.carriedBy.get(sessionId) ?? [])].reverse();
  }

  /** Records a compaction that ended: its block, if the summary call added one, was carried. */
  private noteCarried(sessionId: string, failed: boolean): void {
    const text = this.added.get(sessionId);
    this.added.delete(sessionId);
    if (failed || !text) return;
    const list = this.carriedBy.get(sessionId) ?? [];
    this.carriedBy.delete(sessionId);
    list.push({ time: new Date().toISOString(), kind: 'compaction', tool: '', query: '', text, items: [] });
    this.carriedBy.set(sessionId, list.slice(-CARRIED_PER_SESSION));
    while (this.carriedBy.size > CARRIED_SESSIONS) this.carriedBy.delete(this.carriedBy.keys().next().value as string);
  }

  /** The `session/event` listener: after a successful compaction, reset habituation and maybe nap. */
  onSessionEvent(session: { id: string; header: SessionHeader | undefined }, event: SessionEvent): void {
    const end = compactionEnd(event);
    if (!end || isSubagent(session.header)) return;
    this.noteCarried(session.id, end.error !== undefined);
    if (end.error !== undefined) return;
    this.deps.call('assoc.reset', { sessionId: session.id }, this.deps.backgroundMs).catch((err: Error) => this.deps.log.debug('assoc.reset after compaction: %s', err.message));
    const { nap } = this.deps;
    if (!nap) return;
    const p = nap(session.id).then((o) => this.deps.log.info('nap after compaction of %s: %s', session.id, o.status));
    this.naps.add(p);
    void p.finally(() => this.naps.delete(p));
  }

  /** Whether a nap is running. */
  get napping(): boolean {
    return this.naps.size > 0;
  }

  /** Waits (at most `ms`) for the naps in progress, so a one-shot run does not cut one off. */
  async settle(ms: number): Promise<void> {
    if (this.naps.size > 0) await withTimeout(Promise.allSettled([...this.naps]), ms);
  }

  private headerOf(sessionId: SessionId): SessionHeader | undefined {
    try {
      return this.deps.agentOf(sessionId)?.session.header;
    } catch {
      return undefined;
    }
  }
}
