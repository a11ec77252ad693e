/**
 * Newline-delimited JSON-RPC 2.0 over a child's stdio, in both directions: the plugin calls sidecar
 * methods, and the sidecar calls back (`llm.chat`) with its own ids that are echoed unchanged.
 */
import type { Readable, Writable } from 'node:stream';

/** A JSON value as it crosses the pipe. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Error raised for a JSON-RPC error reply, a timeout, or a dead peer. */
export class RpcError extends Error {
  /** JSON-RPC error code, or a local code: -1 closed, -2 timeout, -3 aborted. */
  readonly code: number;
  /** The error's `data` as the sidecar sent it (a write conflict carries the file on disk there). */
  readonly data: Json | undefined;
  constructor(message: string, code: number, data?: Json) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }
}
/** Local error codes (not on the wire). */
export const RPC_CLOSED = -1;
export const RPC_TIMEOUT = -2;
export const RPC_ABORTED = -3;

/** Notification that cancels an in-flight request by id (LSP convention; the sidecar speaks it). */
export const CANCEL_METHOD = '$/cancelRequest';
/** Error code of a reply to a request the peer cancelled. */
export const CODE_REQUEST_CANCELLED = -32800;

/** Handler for a reverse call from the peer; a throw becomes a -32603 error reply. */
export type RequestHandler = (params: Json, signal: AbortSignal) => Promise<Json>;

interface Pending {
  method: string;
  resolve: (v: Json) => void;
  reject: (e: Error) => void;
  timer?: ReturnType<typeof setTimeout>;
  cleanup?: () => void;
}

/** Per-call options. */
export interface CallOptions {
  /** Reject with RPC_TIMEOUT after this many ms (0/undefined ⇒ no timeout). */
  timeoutMs?: number;
  /** Reject with RPC_ABORTED when this signal fires (the request itself is not retracted). */
  signal?: AbortSignal;
}

/** Splits a byte stream into UTF-8 lines, tolerating chunks that cut lines or characters. */
export function lineReader(stream: Readable, onLine: (line: string) => void): void {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buf += chunk;
    let nl = buf.indexOf('\n');
    while (nl >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, '');
      buf = buf.slice(nl + 1);
      onLine(line);
      nl = buf.indexOf('\n');
    }
  });
  stream.on('end', () => {
    if (buf.length > 0) onLine(buf);
    buf = '';
  });
}

/** One JSON-RPC connection over a readable/writable pair. */
export class RpcPeer {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly inbound = new AbortController();
  /** Reverse calls being handled, by their id as sent, so `$/cancelRequest` can abort one. */
  private readonly inboundCalls = new Map<string, AbortController>();
  private closedError: Error | undefined;

  /**
   * @param input - the peer's stdout.
   * @param output - the peer's stdin.
   * @param onProtocolError - called with a description of each unparsable or unexpected line.
   */
  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly onProtocolError: (msg: string) => void = () => {},
  ) {
    lineReader(input, (line) => this.onLine(line));
    output.on('error', (err: Error) => this.close(new RpcError(`sidecar stdin: ${err.message}`, RPC_CLOSED)));
  }

  /** Registers the handler for a method the peer may call on us. */
  handle(method: string, handler: RequestHandler): void {
    this.handlers.set(method, handler);
  }

  /** Number of calls awaiting a reply. */
  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * Calls a peer method and resolves with its `result`.
   * @param method - method name.
   * @param params - params object.
   * @param opts - timeout and cancellation.
   */
  call(method: string, params: Readonly<Record<string, Json | undefined>> = {}, opts: CallOptions = {}): Promise<Json> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = this.nextId++;
    return new Promise<Json>((resolve, reject) => {
      const p: Pending = { method, resolve, reject };
      if (opts.timeoutMs && opts.timeoutMs > 0) {
        p.timer = setTimeout(() => {
          this.giveUp(id, new RpcError(`${method}: no reply within ${opts.timeoutMs} ms`, RPC_TIMEOUT));
        }, opts.timeoutMs);
      }
      if (opts.signal) {
        const sig = opts.signal;
        if (sig.aborted) {
          reject(new RpcError(`${method}: aborted`, RPC_ABORTED));
          return;
        }
        const onAbort = (): void => {
          this.giveUp(id, new RpcError(`${method}: aborted`, RPC_ABORTED));
        };
        sig.addEventListener('abort', onAbort, { once: true });
        p.cleanup = () => sig.removeEventListener('abort', onAbort);
      }
      this.pending.set(id, p);
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** Sends a notification (no reply expected). */
  notify(method: string, params: Record<string, Json> = {}): void {
    if (!this.closedError) this.write({ jsonrpc: '2.0', method, params });
  }

  /**
   * Marks the connection dead: every in-flight call rejects with `err`, reverse handlers are aborted,
   * and later calls reject immediately. Idempotent.
   */
  close(err: Error = new RpcError('connection closed', RPC_CLOSED)): void {
    if (this.closedError) return;
    this.closedError = err;
    this.inbound.abort(err);
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(err);
  }

  /** Rejects a call we stopped waiting for and tells the sidecar, so its handler stops working on it. */
  private giveUp(id: number, err: RpcError): void {
    const p = this.settle(id);
    if (!p) return;
    p.reject(err);
    this.notify(CANCEL_METHOD, { id });
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    p.cleanup?.();
    return p;
  }

  private write(msg: Readonly<Record<string, Json | Readonly<Record<string, Json | undefined>> | undefined>>): void {
    try {
      this.output.write(JSON.stringify(msg) + '\n');
    } catch (err) {
      this.close(new RpcError(`sidecar stdin: ${(err as Error).message}`, RPC_CLOSED));
    }
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.onProtocolError(`unparsable line from sidecar: ${line.slice(0, 200)}`);
      return;
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
      this.onProtocolError(`non-object message from sidecar: ${line.slice(0, 200)}`);
      return;
    }
    const m = msg as { id?: Json; method?: unknown; params?: Json; result?: Json; error?: unknown };
    if (typeof m.method === 'string') {
      void this.onRequest(m.method, m.id, m.params ?? {});
      return;
    }
    if (typeof m.id !== 'number') {
      this.onProtocolError(`reply with an id we never sent: ${line.slice(0, 200)}`);
      return;
    }
    const p = this.settle(m.id);
    if (!p) return; // late reply after a timeout: nothing waits for it any more
    if (m.error !== undefined && m.error !== null) {
      const e = m.error as { code?: unknown; message?: unknown; data?: Json };
      const code = typeof e.code === 'number' ? e.code : -32603;
      const text = typeof e.message === 'string' ? e.message : JSON.stringify(m.error);
      p.reject(new RpcError(`${p.method}: ${text}`, code, e.data));
    } else {
      p.resolve(m.result ?? null);
    }
  }

  private async onRequest(method: string, id: Json | undefined, params: Json): Promise<void> {
    const isCall = id !== undefined && id !== null;
    if (method === CANCEL_METHOD) {
      const target = typeof params === 'object' && params !== null && !Array.isArray(params) ? params.id : undefined;
      if (target !== undefined) this.inboundCalls.get(JSON.stringify(target))?.abort(new RpcError('cancelled by the sidecar', RPC_ABORTED));
      return;
    }
    const handler = this.handlers.get(method);
    if (!handler) {
      if (isCall) this.write({ jsonrpc: '2.0', id, error: { code: -32601, message: `method not found: ${method}` } });
      return;
    }
    const key = isCall ? JSON.stringify(id) : '';
    const own = new AbortController();
    if (isCall) this.inboundCalls.set(key, own);
    try {
      const result = await handler(params, AbortSignal.any([this.inbound.signal, own.signal]));
      if (isCall && !this.closedError) this.write({ jsonrpc: '2.0', id, result });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const code = own.signal.aborted ? CODE_REQUEST_CANCELLED : -32603;
      if (isCall && !this.closedError) this.write({ jsonrpc: '2.0', id, error: { code, message } });
    } finally {
      if (isCall && this.inboundCalls.get(key) === own) this.inboundCalls.delete(key);
    }
  }
}
