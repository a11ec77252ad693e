/**
 * Session capture: maps the harness's `session/event` feed to the sidecar's session log
 * (`session.append` / `session.tool`), buffered per session and flushed at turn ends, on
 * `session/flush` and at unload. Subagent sessions and the plugin's own hint messages are skipped.
 */
import type { ContentBlock } from '@deepseek-ai/dsh-llm';
import type { SessionEvent, SessionHeader } from '@deepseek-ai/dsh-session';
import { clip } from './clip.js';
import type { CallOf, ParamsOf } from './methods.js';

/** One sidecar call the capture wants made, in order. */
export type CaptureOp =
  | { method: 'session.append'; params: ParamsOf<'session.append'> }
  | { method: 'session.tool'; params: ParamsOf<'session.tool'> };

/** Joins the text of content blocks (nested tool-result content included); images become a marker. */
export function blocksText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        parts.push(b.text);
        break;
      case 'tool-result':
        parts.push(blocksText(b.content));
        break;
      case 'image':
        parts.push('[image]');
        break;
      default:
        break; // reasoning and tool-call blocks are not conversation text
    }
  }
  return parts.filter((p) => p !== '').join('\n');
}

/** Whether a session belongs to a subagent (never captured, never hinted). */
export function isSubagent(header: Pick<SessionHeader, 'origin'> | undefined): boolean {
  return header?.origin === 'subagent';
}

interface PendingCall {
  name: string;
  args: string;
}

/**
 * Pure mapping state for one session: turns events into capture ops.
 * Kept free of I/O so the mapping is unit-testable.
 */
export class SessionMapper {
  private readonly calls = new Map<string, PendingCall>();

  constructor(
    readonly sessionId: string,
    private readonly maxChars: number,
    private readonly isOwnMessage: (id: string) => boolean,
    private readonly skipTool: (name: string) => boolean = () => false,
  ) {}

  /**
   * Maps one event; returns the ops it produces (possibly none).
   * @param event - a session event.
   */
  map(event: SessionEvent): CaptureOp[] {
    switch (event.type) {
      case 'user/message': {
        const m = event.data;
        // Only the person's own words: injected context (skills, notices, our recall hints) is not conversation.
        if (m.source.kind !== 'user' || this.isOwnMessage(m.id)) return [];
        const text = blocksText(m.content).trim();
        if (!text) return [];
        return [{ method: 'session.append', params: { sessionId: this.sessionId, role: 'user', text: clip(text, this.maxChars, 'original') } }];
      }
      case 'assistant/message': {
        const text = blocksText(event.data.message.content).trim();
        if (!text) return [];
        return [{ method: 'session.append', params: { sessionId: this.sessionId, role: 'assistant', text: clip(text, this.maxChars, 'original') } }];
      }
      case 'tool/call':
        this.calls.set(event.data.callId, { name: event.data.name, args: event.data.arguments });
        return [];
      case 'tool/result': {
        const msg = event.data.message;
        const callId = msg.source.callId;
        const call = this.calls.get(callId);
        this.calls.delete(callId);
        if (call && this.skipTool(call.name)) return [];
        const block = msg.content[0];
        let result = blocksText(block ? [block] : []);
        if (event.data.error || block?.isError) {
          const code = event.data.error ? `${event.data.error.name}/${event.data.error.code}` : 'tool error';
          result = `ERROR (${code}): ${result}`;
        }
        const callText = call ? `${call.name}(${compactArgs(call.args)})` : `unknown_call(${callId})`;
        return [{ method: 'session.tool', params: { sessionId: this.sessionId, call: clip(callText, this.maxChars, 'original'), result: clip(result, this.maxChars, 'original') } }];
      }
      default:
        return [];
    }
  }
}

/** Re-serialises JSON arguments compactly; leaves unparsable text as it is. */
function compactArgs(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw));
  } catch {
    return raw;
  }
}

/** How capture talks to the sidecar (the timeout is the caller's). */
export type CaptureCall = <M extends 'session.append' | 'session.tool' | 'session.close'>(method: M, params: ParamsOf<M>) => ReturnType<CallOf<M>>;

/** Ops kept per session while the sidecar cannot take them. */
const MAX_BUFFERED = 2000;

/** Buffers mapped ops per session and sends them in order on flush. */
export class Capture {
  private readonly mappers = new Map<string, SessionMapper>();
  private readonly buffers = new Map<string, CaptureOp[]>();
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly call: CaptureCall,
    private readonly maxChars: number,
    private readonly isOwnMessage: (id: string) => boolean,
    private readonly onError: (err: Error) => void,
    private readonly skipTool: (name: string) => boolean = () => false,
  ) {}

  /**
   * Handles one `session/event`. Flushes on `turn/end`.
   * @returns the flush promise when the event triggered one.
   */
  onEvent(sessionId: string, header: SessionHeader | undefined, event: SessionEvent): Promise<void> | undefined {
    if (isSubagent(header)) return undefined;
    let mapper = this.mappers.get(sessionId);
    if (!mapper) {
      mapper = new SessionMapper(sessionId, this.maxChars, this.isOwnMessage, this.skipTool);
      this.mappers.set(sessionId, mapper);
    }
    const ops = mapper.map(event);
    if (ops.length > 0) {
      const buf = this.buffers.get(sessionId) ?? [];
      buf.push(...ops);
      // A sidecar that stays down must not grow the buffer without bound: drop the oldest.
      if (buf.length > MAX_BUFFERED) buf.splice(0, buf.length - MAX_BUFFERED);
      this.buffers.set(sessionId, buf);
    }
    if (event.type === 'turn/end') return this.flush(sessionId);
    return undefined;
  }

  /** Sends everything buffered for one session, in order; concurrent flushes queue behind each other. */
  flush(sessionId: string): Promise<void> {
    const prev = this.chains.get(sessionId) ?? Promise.resolve();
    const next = prev.then(async () => {
      const ops = this.buffers.get(sessionId);
      if (!ops || ops.length === 0) return;
      this.buffers.delete(sessionId);
      for (let i = 0; i < ops.length; i++) {
        const op = ops[i]!;
        try {
          // Narrowed per method so each call is checked against its own params.
          if (op.method === 'session.append') await this.call(op.method, op.params);
          else await this.call(op.method, op.params);
        } catch (err) {
          // Keep what was not sent, in order, for the next flush (the sidecar may be restarting).
          const rest = ops.slice(i);
          this.buffers.set(sessionId, [...rest, ...(this.buffers.get(sessionId) ?? [])]);
          this.onError(err as Error);
          return;
        }
      }
    });
    this.chains.set(sessionId, next);
    return next;
  }

  /** Flushes every session. */
  async flushAll(): Promise<void> {
    await Promise.all([...this.buffers.keys()].map((id) => this.flush(id)));
  }

  /** Number of ops waiting (diagnostics/tests). */
  pending(sessionId: string): number {
    return this.buffers.get(sessionId)?.length ?? 0;
  }

  /** Flushes, then closes the sidecar's log for this session and forgets it. */
  async close(sessionId: string): Promise<void> {
    await this.flush(sessionId);
    this.mappers.delete(sessionId);
    this.chains.delete(sessionId);
    if (this.buffers.has(sessionId)) return; // could not flush: leave the log open for the sidecar's own close
    try {
      await this.call('session.close', { sessionId });
    } catch (err) {
      this.onError(err as Error);
    }
  }
}
