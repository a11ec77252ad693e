/**
 * The plugin's one text clipper. Every place that bounds text cuts it here, each with the mode that
 * matches what its reader expects; the modes differ only in how length is counted and what the cut
 * leaves behind. Text within the bound is always returned as it is.
 */

/**
 * How a text is clipped:
 * - `original`: keeps `max` code points (as the sidecar counts) and appends the sidecar's own
 *   session-log marker, `\n...(truncated, original N chars)` with N the whole text's code points, so a
 *   session log reads the same whichever side cut (testdata/capture/truncation.json holds both to it).
 * - `removed`: keeps `max` UTF-16 units and appends `…[+N chars]`, N the units cut (log lines).
 * - `ellipsis`: keeps `max` UTF-16 units and appends `…` (a stderr line quoted in a message).
 * - `ellipsisWithin`: the result, `…` included, is at most `max` UTF-16 units (a harness bound that
 *   counts the whole summary).
 */
export type ClipMode = 'original' | 'removed' | 'ellipsis' | 'ellipsisWithin';

/** Cuts `text` to `max` characters in the given mode; text within the bound comes back unchanged. */
export function clip(text: string, max: number, mode: ClipMode): string {
  if (mode === 'original') {
    const chars = Array.from(text);
    if (chars.length <= max) return text;
    return `${chars.slice(0, max).join('')}\n...(truncated, original ${chars.length} chars)`;
  }
  if (text.length <= max) return text;
  switch (mode) {
    case 'removed':
      return `${text.slice(0, max)}…[+${text.length - max} chars]`;
    case 'ellipsis':
      return `${text.slice(0, max)}…`;
    case 'ellipsisWithin':
      return `${text.slice(0, max - 1)}…`;
  }
}
