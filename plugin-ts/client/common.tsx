/** Pieces every view shares: the props they get and a loader hook with error and refresh. */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { TeamOrigin } from '../src/memory-wire.js';
import type { MemoryApi } from './api.js';
import type { Key, T } from './locale.js';

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

/** Loading, the error, or (when `empty`) the view's empty state: what is missing and how it comes. */
export function Status({ t, error, loading, empty, title, hint }: { t: T; error: string; loading: boolean; empty: boolean; title?: Key; hint?: Key }) {
  if (error) return <div className="somni-error" role="alert">{t('unavailable', { reason: error })}</div>;
  if (loading && empty) return <div className="somni-muted somni-small">{t('loading')}</div>;
  if (empty) return <Empty t={t} title={title ?? 'empty'} hint={hint} />;
  return null;
}

/** An empty state as DSH draws one (a dashed box, centred): a line, and a hint of how it fills. */
export function Empty({ t, title, hint, testid }: { t: T; title: Key; hint?: Key; testid?: string }) {
  return (
    <div className="somni-empty" data-testid={testid ?? 'somni-empty'}>
      <div className="somni-empty-title">{t(title)}</div>
      {hint && <div>{t(hint)}</div>}
    </div>
  );
}

export const fmtScore = (n: number | undefined): string => (typeof n === 'number' ? n.toFixed(2) : '');
/**
 * A date or time in the tab's language (`date.locale`, not the browser's): a day without a time of
 * day (`2026-11-20`, as the front-matter stores `created` and `last_used`) is shown as that day, never
 * as its midnight; a time as date and time.
 */
export const fmtTime = (s: string | undefined, t: T): string => {
  if (!s) return '';
  const lang = t('date.locale');
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s.trim());
  if (day) {
    // A local date: parsing "2026-11-20" alone reads UTC midnight, the day before west of Greenwich.
    const d = new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    return d.toLocaleDateString(lang, { year: 'numeric', month: 'short', day: 'numeric' });
  }
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? s : d.toLocaleString(lang, { dateStyle: 'medium', timeStyle: 'short' });
};

/** Where a team pool's entry comes from, as its label says it: "team backend · shared by Alice". */
export const originLabel = (o: TeamOrigin, t: T): string =>
  o.sharedBy ? t('origin.teamBy', { team: o.team, who: o.sharedBy }) : t('origin.team', { team: o.team });

/** An entry kind in the tab's language; a kind this version does not know is shown as it is. */
export const kindLabel = (kind: string, t: T): string => {
  const key = `kind.${kind}`;
  return KIND_KEYS.has(key) ? t(key as Key) : kind;
};
const KIND_KEYS = new Set(['kind.knowledge', 'kind.skill', 'kind.intention', 'kind.episode', 'kind.identity']);

/** A word for a person in place of an internal name (a dream's status, a hint's source), else the name itself. */
export const wordFor = (prefix: 'dreamStatus' | 'dreamTrigger' | 'tool', name: string, t: T): string => {
  const key = `${prefix}.${name}`;
  return WORD_KEYS.has(key) ? t(key as Key) : name;
};
const WORD_KEYS = new Set(['dreamStatus.deep_sleep', 'dreamStatus.skipped', 'dreamStatus.interrupted', 'dreamStatus.error', 'tool.assoc.thought', 'tool.assoc.action', 'tool.recall_memories', 'dreamTrigger.tab', 'dreamTrigger.idle', 'dreamTrigger.manual', 'dreamTrigger.nap']);
