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
 * is not answering. Three misses cost a turn at most about 2 s before nothing waits any more.
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
