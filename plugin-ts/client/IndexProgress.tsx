/**
 * A live line at the top of the tab while the search index is still building: "Indexing memory: 732 of
 * 1,500 ready", with a spinner and a bar. It asks memory.indexStatus (the index's own counters; never
 * memory.health, which runs doctor over the whole store) once on mount, polls only while entries are
 * pending, and is gone once the index is complete: nothing is shown, and nothing polls, when idle.
 */
import { useEffect, useState } from 'react';
import type { MemoryApi } from './api.js';
import type { T } from './locale.js';

/** How often the line asks again while the index builds. */
export const INDEX_POLL_MS = 1_500;

export function IndexProgress({ api, t }: { api: MemoryApi; t: T }) {
  const [progress, setProgress] = useState<{ ready: number; total: number } | null>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = () => {
      api.indexStatus().then(
        (ix) => {
          if (stopped) return;
          if (ix.pending <= 0) return setProgress(null);
          const total = Math.max(ix.entries, ix.pending);
          setProgress({ ready: Math.max(0, total - ix.pending), total });
          timer = setTimeout(poll, INDEX_POLL_MS);
        },
        // A failed status is the Health view's to show; the line just stays away.
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
  const share = progress.total > 0 ? Math.round((progress.ready / progress.total) * 100) : 0;
  return (
    <div className="somni-progress" role="status" data-testid="somni-index-progress">
      <span className="somni-spinner" aria-hidden="true" />
      <span>{t('index.progress', { ready: progress.ready.toLocaleString(lang), total: progress.total.toLocaleString(lang) })}</span>
      <span className="somni-meter" aria-hidden="true"><span style={{ width: `${share}%` }} /></span>
    </div>
  );
}
