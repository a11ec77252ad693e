/**
 * Lifecycle of the somni Go sidecar: spawn through the harness's subprocess service, a readiness
 * ping, crash detection with bounded restarts, and an orderly shutdown. Callers see one `call()`
 * that fails fast while the sidecar is down, so every feature can degrade instead of blocking a turn.
 */
import type { SubprocessHandle, SubprocessSpawnSpec } from '@deepseek-ai/dsh-subprocess';
import { clip } from './clip.js';
import { decodeResult, toPingInfo, type Method, type ParamsOf, type PingInfo, type ResultOf } from './methods.js';
import { RpcError, RpcPeer, RPC_CLOSED, RPC_TIMEOUT, lineReader, type CallOptions, type Json, type RequestHandler } from './rpc.js';

export type { PingInfo } from './methods.js';

/** The subset of a cordis logger the plugin uses. */
export interface Log {
  debug(format: string, ...args: unknown[]): void;
  info(format: string, ...args: unknown[]): void;
  warn(format: string, ...args: unknown[]): void;
  error(format: string, ...args: unknown[]): void;
}

/** Something the user should hear about: a start that failed, or the manager giving up. */
export interface SidecarTrouble {
  kind: 'start-failed' | 'gave-up';
  /** The manager's account (`exited (code 127, signal none)`, a spawn error, a ping timeout). */
  why: string;
  /** The last stderr lines of the process that failed, oldest first. */
  stderrTail: string[];
}

/** Raised by `call()` while the sidecar is not serving; callers degrade on it. */
export class SidecarUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SidecarUnavailable';
  }
}

/** Everything the sidecar manager needs from the host, injectable for tests. */
export interface SidecarOptions {
  /** `ctx.subprocess.spawn`. */
  spawn: (spec: SubprocessSpawnSpec) => SubprocessHandle;
  /** Executable followed by its arguments. */
  argv: readonly string[];
  /** Explicit env entries (merged by the harness onto its scrubbed parent env); undefined removes a name. */
  env: Record<string, string | undefined>;
  cwd: string;
  /** Plugin logger. */
  log: Log;
  /** Logger the sidecar's stderr lines are re-emitted through (`somni:sidecar`). */
  sidecarLog: Log;
  /** Reverse-call handlers (e.g. `llm.chat`), installed on every (re)spawned connection. */
  handlers?: Record<string, RequestHandler>;
  /** Readiness ping timeout (default 20 s). */
  startTimeoutMs?: number;
  /** Restart backoff unit: the n-th restart waits n × this (default 2 s). */
  backoffMs?: number;
  /** Restarts allowed before giving up (default 3). */
  maxRestarts?: number;
  /** How long `shutdown` and the following exit may take before `terminate()` (default 5 s). */
  stopGraceMs?: number;
  /** Uptime after which the restart budget is refilled (default 60 s). */
  stableAfterMs?: number;
  /** Called with every raw stderr line (the plugin copies them into somni.log). */
  onStderrLine?: (line: string) => void;
  /**
   * When set, nothing is spawned: the manager stays `failed` and every call fails with this reason
   * (no binary for this platform). Lets the plugin load with memory off instead of failing boot.
   */
  disabled?: string;
}

type State = 'idle' | 'starting' | 'up' | 'restarting' | 'failed' | 'stopping' | 'stopped';

/** Stderr lines kept of the current process, to explain a start that failed. */
const STDERR_TAIL_LINES = 5;

/**
 * Re-emits one sidecar stderr line at its level; the sidecar writes `<time> LEVEL logger message`.
 * @param line - raw stderr line.
 * @param log - target logger.
 */
export function relayStderrLine(line: string, log: Log): void {
  if (line.trim() === '') return;
  if (line.includes(' ERROR ')) log.error('%s', line);
  else if (line.includes(' WARNING ') || line.includes(' WARN ')) log.warn('%s', line);
  else if (line.includes(' DEBUG ')) log.debug('%s', line);
  else log.info('%s', line);
}

/** Manages one sidecar process at a time. */
export class Sidecar {
  private state: State = 'idle';
  private handle: SubprocessHandle | undefined;
  private peer: RpcPeer | undefined;
  private startPromise: Promise<PingInfo> | undefined;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private restarts = 0;
  private upSince = 0;
  private lifetime = new AbortController();
  private readonly readyListeners = new Set<(info: PingInfo) => void>();
  private readonly troubleListeners = new Set<(trouble: SidecarTrouble) => void>();
  private readonly opts: Required<Omit<SidecarOptions, 'handlers' | 'onStderrLine' | 'disabled'>> &
    Pick<SidecarOptions, 'onStderrLine' | 'disabled'> & { handlers: Record<string, RequestHandler> };
  private stderrTail: string[] = [];
  /** Why calls are not served once the manager is `failed` ('' otherwise). */
  unavailableReason = '';
  /** The last successful ping, if any. */
  info: PingInfo | undefined;
  /** Number of processes spawned so far (diagnostics, tests). */
  spawned = 0;

  constructor(options: SidecarOptions) {
    this.opts = {
      startTimeoutMs: 20_000,
      backoffMs: 2_000,
      maxRestarts: 3,
      stopGraceMs: 5_000,
      stableAfterMs: 60_000,
      handlers: {},
      ...options,
    };
    if (options.disabled) {
      this.state = 'failed';
      this.unavailableReason = options.disabled;
    }
  }

  /** True while calls are being served. */
  get isUp(): boolean {
    return this.state === 'up';
  }

  /** Current state name (diagnostics). */
  get status(): string {
    return this.state;
  }

  /** Pid of the running sidecar, if any. */
  get pid(): number | undefined {
    return this.handle?.pid;
  }

  /** Aborted when the manager stops; reverse-call handlers use it to cancel long work. */
  get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  /**
   * Registers a listener called after every successful (re)start.
   * @returns a disposer.
   */
  onReady(fn: (info: PingInfo) => void): () => void {
    this.readyListeners.add(fn);
    return () => this.readyListeners.delete(fn);
  }

  /**
   * Registers a listener called when a start fails and when restarts are given up. Whoever reports
   * trouble may need what was built around the manager, so it subscribes once that exists, before
   * the first start.
   * @returns a disposer.
   */
  onTrouble(fn: (trouble: SidecarTrouble) => void): () => void {
    this.troubleListeners.add(fn);
    return () => this.troubleListeners.delete(fn);
  }

  /**
   * Starts the sidecar once and resolves when it answered `ping`; later calls share the same promise.
   * A failed first start is treated like a crash (restarts are scheduled) and rejects.
   */
  start(): Promise<PingInfo> {
    if (this.opts.disabled) return Promise.reject(new SidecarUnavailable(`somni memory is off: ${this.opts.disabled}`));
    if (!this.startPromise) this.startPromise = this.launch();
    return this.startPromise;
  }

  /**
   * Calls a sidecar method from the method table and checks its reply against the method's shape.
   * Waits for a start in progress; fails fast with SidecarUnavailable when the sidecar is down,
   * restarting or stopped.
   */
  async call<M extends Method>(method: M, params: ParamsOf<M>, opts: CallOptions = {}): Promise<ResultOf<M>> {
    return decodeResult(method, await this.callRaw(method, params, opts));
  }

  /**
   * {@link call} without the table: any method name, the reply unchecked. For tests and diagnostics
   * (methods only a test sidecar has); features go through {@link call}.
   */
  async callRaw(method: string, params: Readonly<Record<string, Json | undefined>> = {}, opts: CallOptions = {}): Promise<Json> {
    if (this.state === 'starting' && this.startPromise) {
      await this.startPromise.catch(() => undefined);
    }
    const peer = this.peer;
    if (this.state !== 'up' || !peer) {
      if (this.state === 'failed' && this.unavailableReason) throw new SidecarUnavailable(`somni memory is off: ${this.unavailableReason}; ${method} not served`);
      throw new SidecarUnavailable(`somni sidecar is ${this.state === 'restarting' ? 'restarting' : this.state === 'failed' ? 'down (gave up restarting)' : this.state}; ${method} not served`);
    }
    try {
      return await peer.call(method, params, opts);
    } catch (err) {
      // The pipe closed under the call: a killed process whose stdin failed (EPIPE) before its exit
      // was seen. That is the sidecar going away, so callers get the same account as for an exit,
      // not the raw write error.
      if (err instanceof RpcError && err.code === RPC_CLOSED) throw new SidecarUnavailable(`somni sidecar connection closed (${err.message}); ${method} not served`);
      throw err;
    }
  }

  /**
   * Pings the running sidecar and keeps the answer in {@link info} (its embedder's state settles
   * after the readiness ping, once the index is open).
   */
  async ping(timeoutMs = 5_000): Promise<PingInfo> {
    const info = await this.call('ping', {}, { timeoutMs });
    this.info = info;
    return info;
  }

  /**
   * Kills a running sidecar that stopped answering, so it is restarted like one that crashed (same
   * backoff and restart budget): calls in flight fail at once, and so do new ones until it is up.
   * No `shutdown` first: a process that answers nothing would not answer that either.
   * @param why - logged with the kill.
   */
  restart(why: string): void {
    const handle = this.handle;
    if (this.state !== 'up' || !handle) return;
    this.opts.log.warn('killing somni sidecar pid %d to restart it: %s', handle.pid, why);
    // Its calls fail now, not when the process is finally gone.
    this.peer?.close(new SidecarUnavailable(`somni sidecar is being restarted: ${why}`));
    handle.terminate();
  }

  /**
   * Stops the sidecar: `shutdown`, up to `stopGraceMs` for it to exit, then `terminate()`.
   * Cancels any pending restart. Idempotent.
   */
  async stop(): Promise<void> {
    if (this.state === 'stopped' || this.state === 'stopping') return;
    const wasUp = this.state === 'up';
    this.state = 'stopping';
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const handle = this.handle;
    const peer = this.peer;
    const grace = this.opts.stopGraceMs;
    if (handle) {
      const exited = handle.done.then(() => true, () => true);
      if (wasUp && peer) {
        await peer.call('shutdown', {}, { timeoutMs: grace }).catch(() => undefined);
      } else {
        handle.stdin?.end();
      }
      const inTime = await Promise.race([exited, delay(grace).then(() => false)]);
      if (!inTime) {
        this.opts.log.warn('sidecar did not exit within %d ms of shutdown; terminating pid %d', grace, handle.pid);
        handle.terminate();
        await Promise.race([exited, delay(grace * 2)]);
      }
    }
    peer?.close(new RpcError('sidecar stopped', RPC_CLOSED));
    this.lifetime.abort(new Error('somni sidecar stopped'));
    this.state = 'stopped';
  }

  private async launch(): Promise<PingInfo> {
    this.state = 'starting';
    const tail: string[] = [];
    this.stderrTail = tail;
    const { log } = this.opts;
    let handle: SubprocessHandle;
    try {
      handle = this.opts.spawn({
        argv: this.opts.argv,
        cwd: this.opts.cwd,
        stdio: { stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' },
        graceMs: this.opts.stopGraceMs,
        env: this.opts.env,
      });
    } catch (err) {
      const why = `spawn failed: ${(err as Error).message}`;
      this.trouble('start-failed', why);
      this.onExit(undefined, why);
      throw new SidecarUnavailable(`cannot spawn ${this.opts.argv[0]}: ${(err as Error).message}`);
    }
    this.spawned++;
    this.handle = handle;
    if (!handle.stdin || !handle.stdout) {
      handle.terminate();
      this.trouble('start-failed', 'spawned without stdio pipes');
      this.onExit(handle, 'no stdio pipes');
      throw new SidecarUnavailable('sidecar spawned without stdio pipes');
    }
    const peer = new RpcPeer(handle.stdout, handle.stdin, (msg) => log.warn('%s', msg));
    for (const [method, fn] of Object.entries(this.opts.handlers)) peer.handle(method, fn);
    this.peer = peer;
    if (handle.stderr) {
      lineReader(handle.stderr, (line) => {
        if (line.trim() !== '') {
          tail.push(clip(line, 300, 'ellipsis'));
          if (tail.length > STDERR_TAIL_LINES) tail.shift();
        }
        try {
          this.opts.onStderrLine?.(line);
        } catch {
          // a failing sink must not cost the relay below
        }
        relayStderrLine(line, this.opts.sidecarLog);
      });
    }
    handle.done.then(
      (outcome) => this.onExit(handle, `exited (code ${outcome.exitCode ?? 'none'}, signal ${outcome.signal ?? 'none'})`),
      (err: unknown) => this.onExit(handle, `failed to start: ${err instanceof Error ? err.message : String(err)}`),
    );
    try {
      const raw = await peer.call('ping', {}, { timeoutMs: this.opts.startTimeoutMs });
      const info = toPingInfo(raw);
      if (this.handle !== handle || this.state !== 'starting') {
        throw new SidecarUnavailable('sidecar exited during start');
      }
      this.info = info;
      this.state = 'up';
      this.upSince = Date.now();
      log.info('somni sidecar %s up (pid %d, data %s, llm %s, vector %s)', info.version, handle.pid, info.dataDir, info.llm, String(info.vector));
      for (const fn of this.readyListeners) {
        try {
          fn(info);
        } catch (err) {
          log.warn('ready listener failed: %s', (err as Error).message);
        }
      }
      return info;
    } catch (err) {
      let why = (err as Error).message;
      if (!(err instanceof RpcError && err.code === RPC_TIMEOUT)) {
        // A child that dies at once makes the ping write fail (EPIPE) before its exit is observed;
        // its exit code and stderr say far more than the broken pipe, so wait a moment for them.
        const exit = await Promise.race([
          handle.done.then(
            (o) => `exited (code ${o.exitCode ?? 'none'}, signal ${o.signal ?? 'none'})`,
            (e: unknown) => `failed to start: ${e instanceof Error ? e.message : String(e)}`,
          ),
          delay(1_000).then(() => undefined),
        ]);
        if (exit) why = exit;
      }
      // Read through a wider type: TS narrowed `state` at the top, but onExit may have moved it since.
      const now = this.state as State;
      if (now !== 'stopping' && now !== 'stopped') this.trouble('start-failed', why);
      if (this.handle === handle && this.state === 'starting') {
        log.error('somni sidecar did not become ready: %s', why);
        handle.terminate();
        // onExit (from `done`) schedules the restart once the process is gone.
      }
      if (err instanceof SidecarUnavailable && why === err.message) throw err;
      throw new SidecarUnavailable(why);
    }
  }

  private trouble(kind: SidecarTrouble['kind'], why: string): void {
    for (const fn of this.troubleListeners) {
      try {
        fn({ kind, why, stderrTail: [...this.stderrTail] });
      } catch (err) {
        this.opts.log.warn('trouble listener failed: %s', (err as Error).message);
      }
    }
  }

  private onExit(handle: SubprocessHandle | undefined, why: string): void {
    if (handle && handle !== this.handle) return;
    this.peer?.close(new SidecarUnavailable(`somni sidecar ${why}`));
    this.peer = undefined;
    this.handle = undefined;
    if (this.state === 'stopping' || this.state === 'stopped') return;
    const { log } = this.opts;
    if (this.state === 'up' && Date.now() - this.upSince >= this.opts.stableAfterMs) this.restarts = 0;
    if (this.restarts >= this.opts.maxRestarts) {
      this.state = 'failed';
      this.unavailableReason = `the sidecar ${why}; gave up after ${this.restarts} restarts (memory features stay off until the plugin reloads)`;
      log.error('somni sidecar %s; gave up after %d restarts (memory features stay off until the plugin reloads)', why, this.restarts);
      this.trouble('gave-up', why);
      return;
    }
    this.restarts++;
    const wait = this.opts.backoffMs * this.restarts;
    this.state = 'restarting';
    log.warn('somni sidecar %s; restart %d/%d in %d ms', why, this.restarts, this.opts.maxRestarts, wait);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.state !== 'restarting') return;
      this.startPromise = this.launch();
      this.startPromise.catch(() => undefined);
    }, wait);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref?.());
}
