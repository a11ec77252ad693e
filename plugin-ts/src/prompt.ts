/**
 * The three system-prompt sections (identity, intentions, discipline) fed from `prompt.build`.
 * Section providers are synchronous, so they return cached text; refreshes happen at known points
 * (agent created, user input admitted, intention tools, dreams) and coalesce into one call at a time.
 */

import type { PromptTexts } from './methods.js';

export { toPromptTexts, type PromptTexts } from './methods.js';

/** Section names and orders registered with `ctx.systemPrompt.section`. */
export const SECTIONS: ReadonlyArray<{ key: keyof PromptTexts; name: string; order: number }> = [
  { key: 'identity', name: 'somni:identity', order: 100 },
  { key: 'intentions', name: 'somni:intentions', order: 130 },
  { key: 'discipline', name: 'somni:discipline', order: 1200 },
];

/**
 * Makes memory text inert for rc.8's prompt interpolation, which fails the turn on an unknown
 * `{{name}}`: a zero-width space goes between every pair of braces, so no `{{` survives while the
 * text still reads the same.
 * @param text - memory-derived text.
 */
export function neutralizeBraces(text: string): string {
  return text.replace(/\{(?=\{)/g, '{\u200b');
}

/** Fetches fresh texts; `currentMessage` lets intention cues match the new input. */
export type BuildPrompt = (currentMessage: string | undefined) => Promise<PromptTexts>;

/** Cached section texts with coalesced refreshes. */
export class PromptCache {
  private texts: PromptTexts = { identity: '', intentions: '', discipline: '' };
  private inflight: Promise<void> | undefined;
  private queued: { message: string | undefined } | undefined;
  private queuedPromise: Promise<void> | undefined;
  /** Number of `prompt.build` calls made (diagnostics/tests). */
  builds = 0;

  constructor(
    private readonly build: BuildPrompt,
    private readonly onError: (err: Error) => void,
  ) {}

  /** Current text for a section, made safe for interpolation. */
  text(key: keyof PromptTexts): string {
    return neutralizeBraces(this.texts[key]);
  }

  /**
   * Refreshes the cache. A call while one is in flight shares it when no new message is given;
   * otherwise one follow-up refresh runs after it with the latest message. Never rejects: on
   * failure the previous texts stay.
   * @param currentMessage - the user's newly admitted message, if any.
   */
  refresh(currentMessage?: string): Promise<void> {
    if (!this.inflight) {
      this.inflight = this.run(currentMessage);
      return this.inflight;
    }
    if (currentMessage === undefined && !this.queued) return this.inflight;
    this.queued = { message: currentMessage ?? this.queued?.message };
    if (!this.queuedPromise) {
      this.queuedPromise = this.inflight.then(() => {
        const q = this.queued;
        this.queued = undefined;
        this.queuedPromise = undefined;
        this.inflight = this.run(q?.message);
        return this.inflight;
      });
    }
    return this.queuedPromise;
  }

  private async run(message: string | undefined): Promise<void> {
    try {
      this.builds++;
      this.texts = await this.build(message);
    } catch (err) {
      this.onError(err as Error);
    } finally {
      this.inflight = undefined;
    }
  }
}
