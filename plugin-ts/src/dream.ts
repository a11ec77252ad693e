/**
 * Idle dream scheduler: when every agent has been quiet long enough (or too long has passed since
 * the last dream), close the session logs and let the sidecar consolidate them (`sleep.run`).
 * An automatic dream yields to the user: any agent turning `running` cancels it. `dream_now`
 * shares this state so a manual dream and an automatic one never overlap. A nap (one session's log,
 * dreamt over right after that session was compacted) shares it too.
 */
import type { CallOf, ParamsOf } from './methods.js';

/** Result of one dream attempt, as shown to a user or model. */
export interface DreamOutcome {
  status: string;
  text: string;
}

/** What the scheduler needs from the host and the sidecar. */
export interface DreamDeps {
  call: CallOf<'session.closeAll' | 'sleep.status' | 'sleep.run' | 'sleep.cancel'>;
  isUp: () => boolean;
  /** True when every agent is idle. */
  allIdle: () => boolean;
  /** Flushes captured messages before the logs are closed. */
  flushCapture: () => Promise<void>;
  /** Called after a dream that changed memory (refreshes prompt sections). */
  afterDream: () => void;
  idleMs: number;
  maxIntervalMs: number;
  minPendingLogs: number;
  now?: () => number;
  log: { info(f: string, ...a: unknown[]): void; warn(f: string, ...a: unknown[]): void };
}

/** `sleep.run` may legitimately take long: the dreamer reads several logs with many model turns. */
const SLEEP_TIMEOUT_MS = 45 * 60_000;

/** Dream scheduling state shared by the timer and `dream_now`. */
export class DreamScheduler {
  private lastActivity: number;
  private lastDream: number;
  private running: Promise<DreamOutcome> | undefined;
  private runningAuto = false;
  /** Set when a dream attempt ended with no activity since: the same quiet spell never dreams twice. */
  private dreamedSinceActivity = false;
  /** Counts activity, so a dream can tell whether its quiet spell ended while it ran. */
  private activitySeq = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly now: () => number;

  constructor(private readonly deps: DreamDeps) {
    this.now = deps.now ?? Date.now;
    this.lastActivity = this.now();
    this.lastDream = this.now();
  }

  /** True while a dream runs. */
  get dreaming(): boolean {
    return this.running !== undefined;
  }

  /** Records user/agent activity (resets the idle clock). */
  touch(): void {
    this.lastActivity = this.now();
    this.activitySeq++;
    this.dreamedSinceActivity = false;
  }

  /** An agent's status changed: activity, and `running` cancels an automatic dream. */
  onAgentStatus(status: 'idle' | 'running'): void {
    this.touch();
    if (status === 'running' && this.running && this.runningAuto) {
      this.deps.log.info('agent became active: cancelling the automatic dream');
      this.deps.call('sleep.cancel', {}, 10_000).catch((err: Error) => this.deps.log.warn('sleep.cancel failed: %s', err.message));
    }
  }

  /** Starts the periodic check (every `everyMs`, default 30 s). */
  startTimer(everyMs = 30_000): void {
    this.timer = setInterval(() => void this.tick(), everyMs);
    this.timer.unref?.();
  }

  /** Stops the periodic check. */
  stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Whether an automatic dream is due now. A quiet spell earns one attempt: without it a dream that
   * left logs pending (the model did not mark them, or failed) would rerun on every tick while idle.
   */
  due(): boolean {
    if (this.running || !this.deps.isUp() || !this.deps.allIdle()) return false;
    const t = this.now();
    if (t - this.lastDream >= this.deps.maxIntervalMs) return true;
    return !this.dreamedSinceActivity && t - this.lastActivity >= this.deps.idleMs;
  }

  /** One scheduler tick: dreams when due. Resolves with the outcome, or undefined when not due. */
  async tick(): Promise<DreamOutcome | undefined> {
    if (!this.due()) return undefined;
    return this.run('idle', true);
  }

  /** True while a dream (manual or automatic) is under way. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * Runs a dream now (the `dream_now` tool); refuses while one runs.
   * @param trigger - recorded by the sidecar.
   */
  runNow(trigger = 'manual'): Promise<DreamOutcome> {
    if (this.running) return Promise.resolve({ status: 'skipped', text: 'A dream is already running; try again when it finishes.' });
    return this.run(trigger, false);
  }

  /**
   * Dreams over one session's logs now (a nap): its capture is flushed, then `sleep.run` carries the
   * session id, so the sidecar closes that session's live log and dreams only over its pending logs;
   * the session's next message starts a new log segment, which a later dream reads without the napped
   * part. Refuses while a dream runs (that one reads the same logs). Not cancelled by activity: it
   * follows a compaction, which usually happens mid-turn.
   * @param flushSession - sends what capture holds for the session.
   */
  nap(sessionId: string, flushSession: () => Promise<void>): Promise<DreamOutcome> {
    if (this.running) return Promise.resolve({ status: 'skipped', text: 'A dream is already running.' });
    return this.run('nap', false, async () => {
      await flushSession();
      return this.sleepRun({ trigger: 'nap', sessionId });
    });
  }

  private run(trigger: string, auto: boolean, body: () => Promise<DreamOutcome> = () => this.dream(trigger, auto)): Promise<DreamOutcome> {
    const seq = this.activitySeq;
    const p = this.guarded(trigger, body).finally(() => {
      this.running = undefined;
      this.runningAuto = false;
      this.lastDream = this.now();
      // A dream cut short by activity (or run during a turn) leaves the next quiet spell its own try.
      this.dreamedSinceActivity = this.activitySeq === seq;
    });
    this.running = p;
    this.runningAuto = auto;
    return p;
  }

  /** Runs a dream body; a failure becomes an `error` outcome. */
  private async guarded(trigger: string, body: () => Promise<DreamOutcome>): Promise<DreamOutcome> {
    try {
      return await body();
    } catch (err) {
      this.deps.log.warn('dream (%s) failed: %s', trigger, (err as Error).message);
      return { status: 'error', text: `Dream failed: ${(err as Error).message}` };
    }
  }

  private async dream(trigger: string, auto: boolean): Promise<DreamOutcome> {
    const { call, log } = this.deps;
    await this.deps.flushCapture();
    await call('session.closeAll', {}, 30_000);
    const pending = (await call('sleep.status', {}, 15_000)).pendingLogs;
    const min = auto ? Math.max(1, this.deps.minPendingLogs) : 1;
    if (pending < min) {
      return { status: 'skipped', text: `Nothing to dream about: ${pending} pending session log(s) (need ${min}).` };
    }
    log.info('dream starting (%s, %d pending logs)', trigger, pending);
    return this.sleepRun({ trigger });
  }

  /** `sleep.run` and its outcome as told to a user or model. */
  private async sleepRun(params: ParamsOf<'sleep.run'>): Promise<DreamOutcome> {
    const { call, log } = this.deps;
    const r = await call('sleep.run', params, SLEEP_TIMEOUT_MS);
    const st = r.status || 'unknown';
    const total = r.token_usage?.total_tokens;
    const tokens = total === undefined ? '' : ` (${total} tokens)`;
    log.info('dream finished: %s%s', st, tokens);
    if (st === 'deep_sleep' || st === 'interrupted') this.deps.afterDream();
    switch (st) {
      case 'deep_sleep':
        return { status: st, text: `Dream finished${tokens}.\n${r.summary}`.trim() };
      case 'skipped':
        return { status: st, text: `Dream skipped: ${r.reason}` };
      case 'interrupted':
        return { status: st, text: `Dream interrupted: ${r.reason}${tokens}` };
      default:
        return { status: st, text: `Dream failed: ${r.reason || JSON.stringify(r)}` };
    }
  }
}
