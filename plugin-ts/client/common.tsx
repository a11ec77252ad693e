/** Pieces every view shares: the props they get and a loader hook with error and refresh. */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { MemoryApi } from './api.js';
import type { T } from './locale.js';

export interface ViewProps {
  api: MemoryApi;
  t: T;
  open: (path: string) => void;
}

/** Runs `load` on mount and on `reload()`; keeps the last value while reloading. */
export function useLoad<V>(load: () => Promise<V>, deps: unknown[]): { value: V | undefined; error: string; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ value: V | undefined; error: string; loading: boolean }>({ value: undefined, error: '', loading: true });
  const seq = useRef(0);
  const reload = useCallback(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (value) => mine === seq.current && setState({ value, error: '', loading: false }),
      (err: unknown) => mine === seq.current && setState((s) => ({ ...s, error: err instanceof Error ? err.message : String(err), loading: false })),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(() => {
    reload();
  }, [reload]);
  return { ...state, reload };
}

export function Status({ t, error, loading, empty }: { t: T; error: string; loading: boolean; empty: boolean }) {
  if (error) return <div className="somni-error" role="alert">{t('unavailable', { reason: error })}</div>;
  if (loading && empty) return <div className="somni-muted">{t('loading')}</div>;
  if (empty) return <div className="somni-muted">{t('empty')}</div>;
  return null;
}

export const fmtScore = (n: number | undefined): string => (typeof n === 'number' ? n.toFixed(2) : '');
export const fmtTime = (s: string | undefined): string => {
  if (!s) return '';
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? s : d.toLocaleString();
};
