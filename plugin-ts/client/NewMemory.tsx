/** A memory written by hand: name, type, one-sentence description and body, through `memory.create`. */
import { useState } from 'react';
import type { NewMemory as Draft } from '../src/memory-wire.js';
import type { ViewProps } from './common.js';

/** The knowledge types the sidecar accepts (memory.KnowledgeTypes), fact first. */
const TYPES = ['fact', 'preference', 'decision', 'pitfall', 'experience', 'user', 'procedure', 'insight'];

export function NewMemory({ api, t, open, cancel }: ViewProps & { cancel: () => void }) {
  const [draft, setDraft] = useState<Draft>({ name: '', type: 'fact', description: '', body: '' });
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const set = (k: keyof Draft) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  const save = async () => {
    setBusy(true);
    setError('');
    try {
      const r = await api.create(draft);
      open(r.path);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="somni-form" data-testid="somni-new" onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <div className="somni-title">{t('new.open')}</div>
      <div className="somni-filter-row">
        <input className="somni-input" aria-label={t('new.name')} placeholder={t('new.name')} value={draft.name} onChange={set('name')} required style={{ width: 220 }} />
        {/* DSH's own select (Settings → Models): no browser face, its chevron. */}
        <select className="somni-select" aria-label={t('new.type')} value={draft.type} onChange={set('type')}>
          {TYPES.map((ty) => <option key={ty} value={ty}>{ty}</option>)}
        </select>
        <input className="somni-input" aria-label={t('new.description')} placeholder={t('new.description')} value={draft.description} onChange={set('description')} required style={{ flex: 1, minWidth: 240 }} />
      </div>
      <textarea className="somni-textarea" aria-label={t('new.body')} placeholder={t('new.body')} value={draft.body} onChange={set('body')} style={{ minHeight: 140 }} />
      {error && <div className="somni-error" role="alert" style={{ margin: 0 }}>{error}</div>}
      <div className="somni-row" style={{ justifyContent: 'flex-end' }}>
        <button className="somni-btn somni-btn-ghost" type="button" disabled={busy} onClick={cancel}>{t('entry.cancel')}</button>
        <button className="somni-btn somni-btn-primary" type="submit" disabled={busy}>{t('entry.save')}</button>
      </div>
    </form>
  );
}
