/**
 * A circuit breaker for the hot path (the calls a turn waits on, see deadlines.ts): a sidecar that
 * misses BREAKER_MISSES deadlines in a row is not waited on any more. States:
 *
 * - closed: calls go through; a reply resets the count, a deadline missed adds to it. A turn that ran
 *   out of its allowance (see TurnBudget in deadlines.ts) with the last call missed opens it too
 *   ({@link HotPath.onTurnShort}): the allowance means a hung turn makes fewer calls than the limit.
 * - open: calls fail at once with {@link BreakerOpen} (no hint, sections unchanged, capture keeps its
 *   ops); a `ping` probe goes out (half-open). The probe answering means the sidecar is only slow:
 *   closed again. The probe missing means it is hung: it is restarted, the user is told once
 *   ({@link HotPathOptions.onHung}), and the breaker closes when the new process answered its
 *   readiness ping ({@link HotPath.onReady}).
 *
 * Only deadlines count: an error reply is an answer (it resets the count like a result), and a
 * sidecar that is down or restarting fails fast on its own (SidecarUnavailable) and counts neither way.
 */
import { BREAKER_MISSES } from './deadlines.js';
import type { Call, Method } from './methods.js';
import { RpcError, RPC_ABORTED, RPC_CLOSED, RPC_TIMEOUT } from './rpc.js';
import type { Log } from './sidecar.js';

/** Raised instead of calling while the breaker is open. */
export class BreakerOpen extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BreakerOpen';
  }
}

/** Breaker state (diagnostics, tests). */
export type BreakerState = 'closed' | 'open' | 'probing';

/** What the breaker needs from the plugin; injectable for tests. */
export interface HotPathOptions {
  /** The plain call to the sidecar. */
  call: Call;
  /** Whether the sidecar is serving; a call made while it is (re)starting is bounded but not counted. */
  isUp: () => boolean;
  /** Pings the sidecar within `timeoutMs` (the half-open probe). */
  ping: (timeoutMs: number) => Promise<unknown>;
  /** Kills the sidecar so its manager restarts it. */
  restart: (why: string) => void;
  /** Told once per trip that ends in a restart: what the user should hear. */
  onHung: (why: string) => void;
  log: Log;
  /** Consecutive misses that open it (default BREAKER_MISSES). */
  misses?: number;
  /** The probe's deadline. */
  probeMs: number;
}

/** Whether an error is a deadline missed (not an error reply, not a sidecar that is down). */
export function isMiss(err: unknown): boolean {
  return err instanceof RpcError && err.code === RPC_TIMEOUT;
}

/** `p`, or an RPC_TIMEOUT rejection after `ms` (with a little slack for the call's own timer to win). */
function within<T>(p: Promise<T>, ms: number, method: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RpcError(`${method}: no reply within ${ms} ms`, RPC_TIMEOUT)), ms + 50);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** `1 deadline`, `3 deadlines`. */
function deadlines(n: number): string {
  return `${n} deadline${n === 1 ? '' : 's'}`;
}

/** Whether an error is the sidecar's own error reply: it answered, so it is alive. */
function isReply(err: unknown): boolean {
  return err instanceof RpcError && err.code !== RPC_TIMEOUT && err.code !== RPC_CLOSED && err.code !== RPC_ABORTED;
}

/** The breaker and the calls it guards. */
export class HotPath {
  private misses = 0;
  private current: BreakerState = 'closed';
  /** What the last misses were, for the log line and the notice. */
  private lastMiss = '';
  /** Number of times it opened (diagnostics, tests). */
  trips = 0;
  /** Number of restarts it asked for (diagnostics, tests). */
  restarts = 0;

  constructor(private readonly opts: HotPathOptions) {}

  get state(): BreakerState {
    return this.current;
  }

  /**
   * A {@link Call} through the breaker: fails at once while it is open, counts deadlines missed
   * while it is closed.
   */
  readonly call: Call = async (method, params, timeoutMs, signal) => {
    if (this.current !== 'closed') throw new BreakerOpen(`${method} skipped: the somni sidecar stopped answering (breaker ${this.current})`);
    const wasUp = this.opts.isUp();
    try {
      // The deadline bounds the whole call: one made while a start is under way first waits for the
      // start (the manager's rule, right for tools), which a turn must not.
      const result = await within(this.opts.call(method, params, timeoutMs, signal), timeoutMs, method);
      this.misses = 0;
      return result;
    } catch (err) {
      if (isMiss(err) && wasUp) this.miss(method, timeoutMs);
      else if (isReply(err)) this.misses = 0;
      throw err;
    }
  };

  /** The sidecar (re)started and answered its readiness ping: calls go through again. */
  onReady(): void {
    this.misses = 0;
    if (this.current === 'closed') return;
    this.current = 'closed';
    this.opts.log.info('the somni sidecar answers again; hints, prompt sections and capture resume');
  }

  /**
   * A turn went on without the sidecar: its allowance ran out. When the last hot call missed its
   * deadline (no answer since), the probe goes out now rather than after more misses: the allowance
   * lets a hung turn make only one or two calls (a prompt refresh, a hint cut to what was left), so the
   * count alone could take another turn to reach the limit, and the next turn would pay its allowance
   * again. The probe still decides: a slow sidecar answers it and the breaker closes.
   */
  onTurnShort(): void {
    if (this.current !== 'closed' || this.misses === 0) return;
    this.trip('and a turn ran out of its allowance');
  }

  /**
   * Resolves once the breaker is closed again, or `busy()` says nothing is under way that could close
   * it, or after `ms`: the last flush before unload waits for a restart it asked for.
   */
  async settled(ms: number, busy: () => boolean): Promise<void> {
    const until = Date.now() + ms;
    while (this.current !== 'closed' && Date.now() < until) {
      if (this.current === 'open' && !busy()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private miss(method: Method, timeoutMs: number): void {
    this.misses++;
    this.lastMiss = `${method} got no reply within ${timeoutMs} ms`;
    const limit = this.opts.misses ?? BREAKER_MISSES;
    if (this.current !== 'closed' || this.misses < limit) {
      this.opts.log.debug('hot path: %s (%d of %d in a row)', this.lastMiss, this.misses, limit);
      return;
    }
    this.trip('');
  }

  /** Open: calls fail at once while the probe decides. */
  private trip(also: string): void {
    this.current = 'open';
    this.trips++;
    this.opts.log.warn('the somni sidecar missed %s in a row%s (last: %s); turns stop waiting for it, probing with ping', deadlines(this.misses), also ? ` ${also}` : '', this.lastMiss);
    void this.probe();
  }

  /** Half-open: one ping decides between a slow sidecar (close) and a hung one (restart). */
  private async probe(): Promise<void> {
    this.current = 'probing';
    const answered = await within(this.opts.ping(this.opts.probeMs), this.opts.probeMs, 'ping').then(
      () => true,
      () => false,
    );
    if (this.current !== 'probing') return; // a restart finished meanwhile
    if (answered) {
      this.misses = 0;
      this.current = 'closed';
      this.opts.log.warn('the somni sidecar answered the probe: slow, not hung; calls go through again');
      return;
    }
    this.current = 'open';
    const why = `it missed ${deadlines(this.misses)} in a row (${this.lastMiss}) and did not answer a ping within ${this.opts.probeMs} ms`;
    this.restarts++;
    this.opts.log.error('the somni sidecar is not answering: %s; restarting it', why);
    try {
      this.opts.onHung(why);
    } catch (err) {
      this.opts.log.warn('hung listener failed: %s', (err as Error).message);
    }
    this.opts.restart(why);
  }
}
