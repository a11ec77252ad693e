/**
 * Every deadline of a sidecar call, in one place, and why each value.
 *
 * Hot path: calls a turn waits on — `prompt.build` for this turn's sections, `assoc.*` before a step
 * and after a tool, capture's `session.append`/`session.tool` when the session is flushed. A healthy
 * sidecar answers them in a few milliseconds (measured on 200 notes with the hash embedder: p50
 * 0.1–0.3 ms, the slowest of 20 of each 4.5 ms); the local embedder adds one query embedding, tens of
 * milliseconds. The deadlines leave two orders of magnitude for a loaded two-core machine and a GC
 * pause, and stay well under a second because a miss is cheap — one hint not shown, the sections
 * keeping their previous text, a capture op kept and sent later — while a wait is paid by every turn.
 * The old values (4 s per hint, 5 s for the prompt, 10 s per capture op) made a hung sidecar cost a
 * turn about 20 s.
 *
 * On top of each call's own deadline, a turn has one allowance for all its waits together
 * ({@link DEADLINES.turn}, kept by {@link TurnBudget}). Without it the first prompt assembly waited for
 * the sidecar's start up to the 20 s readiness deadline (a sidecar hung at start, in the real harness:
 * a first turn of 19.8 s against 0.15 s once it answered; a one-shot run was reported at 23.9 s
 * against 4 s), and a sidecar hung mid-session still cost a turn 0.8 s for the prompt, 0.5 s for the hint before the
 * step and 0.8 s for the capture op of the harness's flush before the model request (2.1 s before the
 * first model request), then 0.5 s after each tool.
 */
export const DEADLINES = {
  /** Readiness ping of a (re)started sidecar: it opens the index and may load the ONNX model from a cold disk. */
  start: 20_000,
  /** `prompt.build` outside a turn (agent created, after a dream, after a restart): nobody waits for it. */
  build: 15_000,
  /** `tools.list` after a start: the shipped schemas stand in meanwhile. */
  list: 15_000,
  /** Session bookkeeping nobody waits for (`session.close`, `assoc.reset`) and the flush at unload. */
  background: 10_000,
  /** Hot: `prompt.build` for the message just admitted (its intention cues), which the prompt waits for. */
  promptBuild: 800,
  /** Hot: how long the prompt assembly and an intention tool wait for that refresh (a little over its deadline). */
  promptInTurn: 1_000,
  /**
   * Hot: the most one turn waits on the sidecar, all its hooks together: the first assembly waiting for
   * a start, this turn's prompt refresh, the hint before each step and after each tool, and the capture
   * that the harness's flushes before each model request and tool call wait for. A healthy sidecar uses
   * milliseconds of it (2–79 ms a turn in the e2e runs); a hung or slow-starting one costs the turn
   * this once, and the turn goes on without memory. About a second is what a person notices anyway in
   * a first reply; a normal start fits in it (spawn to readiness reply 0.23–0.47 s on the loaded
   * two-core test machine, and the start begins at plugin load, before the first turn).
   */
  turn: 1_000,
  /**
   * Hot: a wait shorter than this is not made; the call is skipped as if the allowance were spent. A
   * healthy sidecar answers in milliseconds, but a deadline this short could be missed on a loaded
   * machine and counted against it by the breaker, for a hint nobody would miss.
   */
  turnFloor: 100,
  /** Hot: `assoc.thought` / `assoc.action`; a late hint is worth less than none. */
  assoc: 500,
  /** Hot: each capture op when a turn ends or the session is flushed. */
  capture: 800,
  /**
   * How long a compaction summary waits for somni's digest, counted from when the summary call
   * started (the digest is asked for in parallel, so it usually costs nothing); late ⇒ no digest block.
   * A compaction happens at most a few times per session and a real summary takes seconds, so this can
   * be generous compared with the per-turn hot deadlines.
   */
  digest: 2_000,
  /**
   * At unload or a session flush, how long a nap in progress is waited for: a one-shot run would
   * otherwise stop the sidecar mid-dream. A nap reads one session's log, a few model turns.
   */
  napSettle: 60_000,
  /** The web Memory tab's reads and edits: a person waits on them, but nothing in a turn does. */
  tab: 10_000,
  /** The half-open probe: a `ping` the breaker sends before it restarts a sidecar that keeps missing. */
  probe: 1_000,
} as const;

/**
 * Consecutive hot-path misses that open the breaker. One miss can be a scheduling hiccup on a
 * loaded machine; three in a row, each with two orders of magnitude of headroom, is a sidecar that
 * is not answering. Misses in one turn share its allowance ({@link DEADLINES.turn}), so a turn pays at
 * most about 1 s for them, and once the breaker is open nothing waits any more.
 */
export const BREAKER_MISSES = 3;

/**
 * Resolves with `p`'s value, or undefined after `ms` or when `p` fails: the one way the plugin waits on
 * something it can do without (a prompt refresh, a digest, a nap) without ever failing its caller.
 */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      () => {
        clearTimeout(t);
        resolve(undefined);
      },
    );
  });
}

/** Raised instead of calling the sidecar when the turn has too little of its allowance left. */
export class TurnAllowanceSpent extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TurnAllowanceSpent';
  }
}

/** One wait of a turn: what it was for, its deadline, and how it ended. */
interface Wait {
  readonly what: string;
  /** The deadline it got (0 when skipped). */
  readonly deadlineMs: number;
  /** Time it took, once it ended. */
  spentMs?: number;
}

/** A turn's allowance: what its waits used, overlapping waits counted once. */
interface Turn {
  readonly turn: number;
  /** Between the turn's start and its end (false for a key whose turn start was not seen). */
  readonly open: boolean;
  /** Time used by waits that ended, ms (overlapping ones counted once). */
  usedMs: number;
  /** Waits under way, and since when one has been. */
  active: number;
  since: number;
  readonly waits: Wait[];
}

/** What a turn waited on the sidecar, once it ended: one log line, and whether it went without. */
export interface TurnAccount {
  /** `turn N of KEY waited MS ms on the sidecar (allowance MS ms): WHAT SPENT/DEADLINE ms done|gave up, WHAT skipped, …` */
  readonly line: string;
  /** Whether a wait ran out its deadline or was skipped: the turn went on without some memory. */
  readonly short: boolean;
}

/**
 * The per-turn allowance ({@link DEADLINES.turn}): every wait of a turn on the sidecar — on a start, a
 * refresh, a call — gets its own deadline cut to what is left of the turn's allowance, and is not made
 * (skipped) when less than the floor is left. A wait armed while others are under way ends by the same
 * horizon as they do, so the time a turn spends waiting, all hooks together, stays within the
 * allowance (plus the lateness of a timer on a busy machine). Keyed by session (an agent's id is its
 * session's); a key whose turn start was not seen gets a fresh allowance.
 */
export class TurnBudget {
  private readonly turns = new Map<string, Turn>();

  constructor(
    readonly allowanceMs: number,
    private readonly floorMs: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** A turn starts: its allowance is whole again. */
  begin(key: string, turn: number): void {
    this.turns.set(key, { turn, open: true, usedMs: 0, active: 0, since: 0, waits: [] });
  }

  /** A turn ended: its account (undefined when it waited on nothing), and the key is forgotten. */
  end(key: string): TurnAccount | undefined {
    const t = this.turns.get(key);
    this.turns.delete(key);
    if (!t || t.waits.length === 0) return undefined;
    // A timed-out wait took at least its deadline (its timer was set after the wait began).
    const gaveUp = (w: Wait): boolean => w.spentMs !== undefined && w.spentMs >= w.deadlineMs;
    const words = t.waits.map((w) => {
      if (w.deadlineMs === 0) return `${w.what} skipped`;
      if (w.spentMs === undefined) return `${w.what} still waiting (deadline ${w.deadlineMs} ms)`;
      return `${w.what} ${w.spentMs}/${w.deadlineMs} ms ${gaveUp(w) ? 'gave up' : 'done'}`;
    });
    return {
      short: t.waits.some((w) => w.deadlineMs === 0 || gaveUp(w)),
      line: `turn ${t.turn} of ${key} waited ${this.used(t)} ms on the sidecar (allowance ${this.allowanceMs} ms): ${words.join(', ')}`,
    };
  }

  /** Whether a turn of this key has started and not ended. */
  inTurn(key: string): boolean {
    return this.turns.get(key)?.open === true;
  }

  /** Drops a key without an account (its session is gone). */
  forget(key: string): void {
    this.turns.delete(key);
  }

  /**
   * Waits for `p` at most `ms`, cut to what is left of the turn's allowance; resolves with whether `p`
   * settled (fulfilled or rejected) in time, false when it did not or the wait was skipped. Never rejects.
   */
  async wait(key: string | undefined, what: string, p: Promise<unknown>, ms: number): Promise<boolean> {
    const settled = p.then(() => true, () => true);
    try {
      return (await this.call(key, what, ms, (deadline) => withTimeout(settled, deadline))) === true;
    } catch {
      return false;
    }
  }

  /**
   * Runs `run` with `ms` cut to what is left of the turn's allowance (`run` must not outlast the
   * deadline it is given); throws {@link TurnAllowanceSpent} without running it when less than the floor is left.
   */
  async call<T>(key: string | undefined, what: string, ms: number, run: (deadlineMs: number) => Promise<T>): Promise<T> {
    const t = (key === undefined ? undefined : this.turns.get(key)) ?? this.fresh(key);
    const start = this.now();
    const deadlineMs = Math.min(ms, Math.floor(this.allowanceMs - this.used(t, start)));
    const wait: Wait = { what, deadlineMs: deadlineMs >= this.floorMs ? deadlineMs : 0 };
    t.waits.push(wait);
    if (wait.deadlineMs === 0) throw new TurnAllowanceSpent(`${what} skipped: this turn already waited ${this.used(t, start)} of its ${this.allowanceMs} ms on the somni sidecar`);
    if (t.active++ === 0) t.since = start;
    try {
      return await run(wait.deadlineMs);
    } finally {
      const end = this.now();
      wait.spentMs = end - start;
      if (--t.active === 0) t.usedMs += end - t.since;
    }
  }

  /** Time the turn's waits used by `at`, the one under way included. */
  private used(t: Turn, at = this.now()): number {
    return t.usedMs + (t.active > 0 ? at - t.since : 0);
  }

  /** The allowance of a key whose turn start was not seen (kept, so its next waits share it). */
  private fresh(key: string | undefined): Turn {
    const t: Turn = { turn: 0, open: false, usedMs: 0, active: 0, since: 0, waits: [] };
    if (key !== undefined) this.turns.set(key, t);
    return t;
  }
}
