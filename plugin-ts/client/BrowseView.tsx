/** Browse and search: kind/tag/date filters, `memory.list {query}` with each hit's reason. */
import { useState } from 'react';
import type { MemoryListQuery } from '../src/memory-wire.js';
import { Status, fmtScore, fmtTime, kindLabel, originLabel, useLoad, type ViewProps } from './common.js';
import { NewMemory } from './NewMemory.js';

const KINDS = ['', 'knowledge', 'skill', 'intention', 'episode'];

export function BrowseView({ api, t, open }: ViewProps) {
  const [form, setForm] = useState<MemoryListQuery>({});
  const [query, setQuery] = useState<MemoryListQuery>({});
  const { value, error, loading } = useLoad(() => api.list({ ...query, limit: 200 }), [api, query]);
  const entries = value?.entries ?? [];
  const set = (k: keyof MemoryListQuery) => (v: string) => setForm((f) => ({ ...f, [k]: v || undefined }));
  const [writing, setWriting] = useState(false);
  return (
    <div data-testid="somni-browse">
      <div className="somni-row" style={{ marginBottom: 8 }}>
        <button className="somni-btn" data-testid="somni-new-open" onClick={() => setWriting(true)} disabled={writing}>{t('new.open')}</button>
      </div>
      {writing && <NewMemory api={api} t={t} open={open} cancel={() => setWriting(false)} />}
      <form className="somni-filters" onSubmit={(e) => { e.preventDefault(); setQuery({ ...form }); }}>
        <input aria-label={t('browse.search')} placeholder={t('browse.search')} value={form.query ?? ''} onChange={(e) => set('query')(e.target.value)} style={{ minWidth: 220 }} />
        <label className="somni-small">{t('browse.kind')}{' '}
          <select value={form.kind ?? ''} onChange={(e) => set('kind')(e.target.value)}>
            {KINDS.map((k) => <option key={k} value={k}>{k ? kindLabel(k, t) : t('browse.any')}</option>)}
          </select>
        </label>
        <input aria-label={t('browse.tag')} placeholder={t('browse.tag')} value={form.tag ?? ''} onChange={(e) => set('tag')(e.target.value)} style={{ width: 90 }} />
        <label className="somni-small">{t('browse.since')} <input type="date" value={form.since ?? ''} onChange={(e) => set('since')(e.target.value)} /></label>
        <label className="somni-small">{t('browse.until')} <input type="date" value={form.until ?? ''} onChange={(e) => set('until')(e.target.value)} /></label>
        <label className="somni-small"><input type="checkbox" checked={form.archived === true} onChange={(e) => setForm((f) => ({ ...f, archived: e.target.checked || undefined }))} /> {t('browse.archived')}</label>
        <button className="somni-btn" type="submit">{t('browse.go')}</button>
      </form>
      {value && query.query && value.total === 0 ? (
        <div className="somni-muted" data-testid="somni-no-match">{t('browse.noMatch', { query: query.query })}</div>
      ) : (
        <>
          {value && <div className="somni-muted somni-small">{t('browse.total', { total: value.total })}</div>}
          <Status t={t} error={error} loading={loading} empty={entries.length === 0} />
        </>
      )}
      {entries.map((e) => (
        <div className="somni-card" key={e.path} data-path={e.path}>
          <div className="somni-row">
            <button className="somni-link" onClick={() => open(e.path)}>{e.name}</button>
            <span className="somni-badge">{kindLabel(e.kind, t)}{e.type ? ` · ${e.type}` : ''}</span>
            {/* Personal entries carry no label; a team pool's says whose it is. */}
            {e.origin && <span className="somni-badge somni-badge-team" data-testid="somni-origin">{originLabel(e.origin, t)}</span>}
            {e.pinned && <span className="somni-badge">{t('browse.pinned')}</span>}
            {e.archived && <span className="somni-badge">{t('browse.archived')}</span>}
            {e.tags.map((tag) => <span className="somni-badge" key={tag}>#{tag}</span>)}
            <span className="somni-spacer" />
            <span className="somni-muted somni-small">{fmtTime(e.lastUsed || e.created, t)}</span>
          </div>
          {e.description && <div className="somni-small">{e.description}</div>}
          {e.hit && <div className="somni-muted somni-small" data-testid="somni-hit">{t('session.score', { score: fmtScore(e.hit.score) })} · {t('session.why', { why: e.hit.why })}</div>}
        </div>
      ))}
    </div>
  );
}
