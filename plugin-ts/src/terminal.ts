/**
 * Degraded states on the terminal: a host without a UI of its own (the headless one-shot runner,
 * a script) prints only the answer, so a notice the model may or may not repeat is all a user would
 * get. There, each problem is written once per process as one line on stderr: what is off, why,
 * and the log file. A host that serves a UI keeps telling it through the notice (notice.ts), which
 * its transcript shows.
 */
import type { Context } from '@deepseek-ai/cordis';
import { PLUGIN_NAME } from './assoc.js';
import { clip } from './clip.js';
import type { Problem } from './install.js';

/** Where the line goes; tests substitute a capture. */
export const internals: { stderr: { write(chunk: string): unknown } } = { stderr: process.stderr };

/** The longest account a line carries (a start failure's stderr tail can be long). */
const LINE_MAX_CHARS = 600;

/**
 * Whether the host shows the user a UI of its own: a web server service for the app is registered.
 * Read when a line is due, not at load: services may be provided after this plugin loads.
 */
export function servesUi(ctx: Pick<Context, 'get'>): boolean {
  try {
    if (typeof ctx.get !== 'function') return false;
    const webServer: unknown = ctx.get('webServer', false);
    return webServer !== undefined && webServer !== null;
  } catch {
    return false;
  }
}

/** The one stderr line for problems not printed yet: the first one's summary and account, the log path. */
export function stderrLine(problems: readonly Problem[], logPath: string): string {
  const [first, ...rest] = problems;
  if (!first) return '';
  const flat = (t: string): string => t.replace(/\s+/g, ' ').trim();
  const more = rest.length > 0 ? ` Also: ${rest.map((p) => flat(p.summary)).join('; ')}.` : '';
  const account = clip(`${flat(first.message)}${more}`, LINE_MAX_CHARS, 'ellipsisWithin');
  return `${PLUGIN_NAME}: ${flat(first.summary)}: ${account} (log: ${logPath})\n`;
}

/** Prints each problem at most once per process, only on a host without a UI of its own. */
export class TerminalLine {
  private readonly printed = new Set<string>();
  /** Once a UI was seen it stays seen: at unload the host may already have removed its service. */
  private sawUi = false;
  private probe: ReturnType<typeof setInterval> | undefined;

  /**
   * @param servesUi - whether the host has a UI of its own right now.
   * @param problems - the problems reported so far, in order.
   * @param logPath - the log file the line names.
   */
  constructor(
    private readonly servesUi: () => boolean,
    private readonly problems: () => readonly Problem[],
    private readonly logPath: string,
  ) {}

  /** Whether the host has (had) a UI. */
  hasUi(): boolean {
    if (!this.sawUi && this.servesUi()) this.sawUi = true;
    return this.sawUi;
  }

  /**
   * Looks for the host's UI each second while the host boots (30 s at most): a UI service may be
   * provided after this plugin loads and be gone again by the time the plugin unloads.
   */
  watch(): void {
    let left = 30;
    if (this.hasUi()) return;
    this.probe = setInterval(() => {
      if (this.hasUi() || --left <= 0) this.stop();
    }, 1_000);
    this.probe.unref?.();
  }

  stop(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
  }

  /** Writes one line for problems not printed yet; none on a host with a UI. */
  flush(): void {
    const fresh = this.problems().filter((p) => !this.printed.has(p.key));
    if (fresh.length === 0 || this.hasUi()) return;
    for (const p of fresh) this.printed.add(p.key);
    try {
      internals.stderr.write(stderrLine(fresh, this.logPath));
    } catch {
      // a closed stderr must not cost the turn
    }
  }
}
