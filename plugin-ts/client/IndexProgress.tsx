/**
 * A live line at the top of the tab while the search index is still building: "Indexing memory: 732 of
 * 1,500 ready". One memory.health on mount; it polls only while entries are pending, and is gone once
 * the index is complete (no polling when idle).
 */
import { useEffect, useState } from 'react';
import type { Plain } from '../src/memory-wire.js';
import type { MemoryApi } from './api.js';
import type { T } from './locale.js';

/** How often the line asks again while the index builds. */
export const INDEX_POLL_MS = 1_500;

const num = (v: Plain | undefined): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export function IndexProgress({ api, t }: { api: MemoryApi; t: T }) {
  const [progress, setProgress] = useState<{ ready: number; total: number } | null>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = () => {
      api.health().then(
        (h) => {
          if (stopped) return;
          const pending = num(h.index.pending);
          if (pending <= 0) return setProgress(null);
          const total = Math.max(num(h.index.entries), pending);
          setProgress({ ready: Math.max(0, total - pending), total });
          timer = setTimeout(poll, INDEX_POLL_MS);
        },
        // A failed health is the Health view's to show; the line just stays away.
        () => !stopped && setProgress(null),
      );
    };
    poll();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [api]);
  if (!progress) return null;
  const lang = t('date.locale');
  return (
    <div className="somni-note somni-muted somni-small" role="status" data-testid="somni-index-progress">
      {t('index.progress', { ready: progress.ready.toLocaleString(lang), total: progress.total.toLocaleString(lang) })}
    </div>
  );
}
