/**
 * Browse and search: `memory.list {query}` with each hit's reason, filtered by kind, tag, when and the
 * archive. The filters are DSH's pills (a kind, a time span, the archive: each applies at once), not
 * the browser's select, date and checkbox controls; a custom span is two YYYY-MM-DD fields.
 */
import { useState } from 'react';
import type { MemoryListQuery } from '../src/memory-wire.js';
import { Empty, Status, fmtScore, fmtTime, kindLabel, originLabel, useLoad, type ViewProps } from './common.js';
import type { Key } from './locale.js';
import { NewMemory } from './NewMemory.js';

const KINDS = ['', 'knowledge', 'skill', 'intention', 'episode'];
/** The time spans offered, in days back from today; 'custom' opens the two date fields. */
const SPANS = ['any', '7', '30', '365', 'custom'] as const;
type Span = (typeof SPANS)[number];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Today minus `days`, as the YYYY-MM-DD of the local calendar (the day the user sees). */
function daysAgo(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() - days);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export function BrowseView({ api, t, open }: ViewProps) {
  const [form, setForm] = useState<MemoryListQuery>({});
  const [query, setQuery] = useState<MemoryListQuery>({});
  const [span, setSpan] = useState<Span>('any');
  const [bad, setBad] = useState(false);
  const { value, error, loading } = useLoad(() => api.list({ ...query, limit: 200 }), [api, query]);
  const entries = value?.entries ?? [];
  const text = (k: 'query' | 'tag' | 'since' | 'until') => (v: string) => setForm((f) => ({ ...f, [k]: v || undefined }));
  // A pill applies at once, with whatever the text fields hold.
  const apply = (next: MemoryListQuery) => {
    setForm(next);
    setQuery({ ...next });
  };
  const pickSpan = (s: Span) => {
    setSpan(s);
    setBad(false);
    if (s === 'custom') return;
    apply({ ...form, since: s === 'any' ? undefined : daysAgo(Number(s)), until: undefined });
  };
  const submit = () => {
    const wrong = span === 'custom' && [form.since, form.until].some((d) => d !== undefined && !DAY.test(d));
    setBad(wrong);
    if (!wrong) setQuery({ ...form });
  };
  const [writing, setWriting] = useState(false);
  return (
    <div data-testid="somni-browse">
      <form className="somni-filters" onSubmit={(e) => { e.preventDefault(); submit(); }}>
        <div className="somni-filter-row">
          <label className="somni-search" style={{ flex: '1 1 260px' }}>
            <SearchIcon />
            <input type="text" aria-label={t('browse.search')} placeholder={t('browse.search')} value={form.query ?? ''} onChange={(e) => text('query')(e.target.value)} />
          </label>
          <input className="somni-input" aria-label={t('browse.tag')} placeholder={t('browse.tag')} value={form.tag ?? ''} onChange={(e) => text('tag')(e.target.value)} style={{ width: 120 }} />
          <button className="somni-btn somni-btn-primary" type="submit">{t('browse.go')}</button>
          <span className="somni-spacer" />
          <button className="somni-btn" type="button" data-testid="somni-new-open" onClick={() => setWriting(true)} disabled={writing}>{t('new.open')}</button>
        </div>
        <div className="somni-filter-row">
          <span className="somni-label">{t('browse.kind')}</span>
          <span className="somni-pills" role="group" aria-label={t('browse.kind')} data-testid="somni-kinds">
            {KINDS.map((k) => (
              <button key={k || 'any'} type="button" className="somni-pill somni-cap" aria-pressed={(form.kind ?? '') === k} data-kind={k || 'any'}
                onClick={() => apply({ ...form, kind: k || undefined })}>{k ? kindLabel(k, t) : t('browse.any')}</button>
            ))}
          </span>
          <span className="somni-label" style={{ marginLeft: 8 }}>{t('browse.when')}</span>
          <span className="somni-pills" role="group" aria-label={t('browse.when')} data-testid="somni-spans">
            {SPANS.map((s) => (
              <button key={s} type="button" className="somni-pill" aria-pressed={span === s} data-span={s} onClick={() => pickSpan(s)}>{t(`browse.span.${s}` as Key)}</button>
            ))}
          </span>
          <button type="button" className="somni-pill" style={{ marginLeft: 8 }} aria-pressed={form.archived === true} data-testid="somni-archived"
            onClick={() => apply({ ...form, archived: form.archived ? undefined : true })}>{t('browse.archived')}</button>
        </div>
        {span === 'custom' && (
          <div className="somni-filter-row" data-testid="somni-custom-span">
            <span className="somni-label">{t('browse.since')}</span>
            <input className="somni-input" inputMode="numeric" aria-label={t('browse.since')} placeholder={t('browse.dayFormat')} value={form.since ?? ''}
              aria-invalid={form.since !== undefined && !DAY.test(form.since)} onChange={(e) => text('since')(e.target.value)} style={{ width: 130 }} />
            <span className="somni-label">{t('browse.until')}</span>
            <input className="somni-input" inputMode="numeric" aria-label={t('browse.until')} placeholder={t('browse.dayFormat')} value={form.until ?? ''}
              aria-invalid={form.until !== undefined && !DAY.test(form.until)} onChange={(e) => text('until')(e.target.value)} style={{ width: 130 }} />
            {bad && <span className="somni-error" role="alert" style={{ margin: 0 }}>{t('browse.badDay')}</span>}
          </div>
        )}
      </form>
      {writing && <NewMemory api={api} t={t} open={open} cancel={() => setWriting(false)} />}
      {value && query.query && value.total === 0 ? (
        <div className="somni-empty">
          <div className="somni-empty-title" data-testid="somni-no-match">{t('browse.noMatch', { query: query.query })}</div>
          <div>{t('browse.noMatchHint')}</div>
        </div>
      ) : value && entries.length === 0 && !error ? (
        <Empty t={t} title={query.archived ? 'browse.emptyArchive' : 'browse.empty'} hint={query.archived ? undefined : 'browse.emptyHint'} />
      ) : (
        <>
          {value && <div className="somni-list-head">{value.total === 1 ? t('browse.totalOne') : t('browse.total', { total: value.total })}</div>}
          <Status t={t} error={error} loading={loading} empty={entries.length === 0} />
        </>
      )}
      {entries.map((e) => (
        <div className="somni-card" key={e.path} data-path={e.path}>
          <div className="somni-row">
            <button className="somni-link somni-title" onClick={() => open(e.path)}>{e.name}</button>
            <span className="somni-badge">{kindLabel(e.kind, t)}{e.type ? ` · ${e.type}` : ''}</span>
            {/* Personal entries carry no label; a team pool's says whose it is. */}
            {e.origin && <span className="somni-badge somni-badge-team" data-testid="somni-origin">{originLabel(e.origin, t)}</span>}
            {e.pinned && <span className="somni-badge somni-badge-warn">{t('browse.pinned')}</span>}
            {e.archived && <span className="somni-badge">{t('browse.archived')}</span>}
            {e.tags.map((tag) => <span className="somni-badge" key={tag}>#{tag}</span>)}
            <span className="somni-spacer" />
            <span className="somni-muted somni-small">{fmtTime(e.lastUsed || e.created, t)}</span>
          </div>
          {e.description && <div className="somni-secondary" style={{ fontSize: 13, lineHeight: '20px' }}>{e.description}</div>}
          {e.hit && <div className="somni-muted somni-small" data-testid="somni-hit">{t('session.score', { score: fmtScore(e.hit.score) })} · {t('session.why', { why: e.hit.why })}</div>}
        </div>
      ))}
    </div>
  );
}

/** DSH's search glyph (a lens, 16 px, in the label's tertiary colour). */
function SearchIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 16 16" fill="none" aria-hidden="true" style={{ flex: 'none' }}>
      <circle cx="7" cy="7" r="4.75" stroke="currentColor" strokeWidth="1.5" />
      <path d="M10.5 10.5L13.5 13.5" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
    </svg>
  );
}
