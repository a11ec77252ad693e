/**
 * One memory: rendered Markdown and front-matter, its strength, Edit (with a side-by-side conflict
 * when the file changed on disk meanwhile: nothing the user typed is lost), Forget, Pin/Unpin. A team
 * pool's entry is shown read-only, saying where it lives: only an approved share writes a pool.
 */
import { useState } from 'react';
import type { MemoryEntry } from '../src/memory-wire.js';
import { Status, kindLabel, originLabel, useLoad, type ViewProps } from './common.js';
import { renderMarkdown } from './markdown.js';
import { Sparkline } from './Sparkline.js';

type Edit = { draft: string; base: string; conflict?: { current: string; version: string } };

export function EntryView({ api, t, open, path, back }: ViewProps & { path: string; back: () => void }) {
  const { value: entry, error, loading, reload } = useLoad(() => api.read(path), [api, path]);
  const [edit, setEdit] = useState<Edit | null>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (fn: () => Promise<string | void>) => {
    setBusy(true);
    setNote(null);
    try {
      const msg = await fn();
      if (msg) setNote({ ok: true, text: msg });
    } catch (err) {
      setNote({ ok: false, text: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };
  const save = (raw: string, version: string) =>
    act(async () => {
      const r = await api.write(path, raw, version);
      if (r.status === 'conflict') {
        setEdit({ draft: raw, base: version, conflict: { current: r.current, version: r.version } });
        return;
      }
      setEdit(null);
      reload();
      return r.redacted ? t('entry.redacted') : t('entry.saved');
    });
  return (
    <div data-testid="somni-entry">
      <div className="somni-bar">
        <button className="somni-btn somni-btn-ghost" onClick={back}>{t('entry.back')}</button>
        <span className="somni-small somni-muted">{entry?.origin ? `${t('origin.team', { team: entry.origin.team })} · ${entry.origin.path}` : path}</span>
      </div>
      <Status t={t} error={error} loading={loading} empty={!entry} />
      {note && <div className={note.ok ? 'somni-ok' : 'somni-error'} role="status">{note.text}</div>}
      {entry && !edit && (
        <Shown entry={entry} t={t} busy={busy}
          onEdit={() => setEdit({ draft: entry.raw, base: entry.version })}
          onPin={() => act(async () => { await api.pin(path, !entry.pinned, entry.version); reload(); })}
          onRestore={() => act(async () => { const r = await api.restore(path, entry.version); open(r.restoredTo); return t('entry.restored', { path: r.restoredTo }); })}
          onForget={() => {
            if (!window.confirm(t('entry.forgetConfirm'))) return;
            // The entry now lives in the archive: show it there (with Restore), not the path it left.
            void act(async () => { const r = await api.forget(path, entry.version); open(r.archivedTo); return t('entry.forgotten', { path: r.archivedTo }); });
          }} />
      )}
      {entry && edit && !edit.conflict && (
        <div>
          <textarea className="somni-textarea" data-testid="somni-editor" value={edit.draft} onChange={(e) => setEdit({ ...edit, draft: e.target.value })} />
          <div className="somni-row" style={{ justifyContent: 'flex-end', marginTop: 8 }}>
            <button className="somni-btn somni-btn-ghost" disabled={busy} onClick={() => setEdit(null)}>{t('entry.cancel')}</button>
            <button className="somni-btn somni-btn-primary" disabled={busy} onClick={() => save(edit.draft, edit.base)}>{t('entry.save')}</button>
          </div>
        </div>
      )}
      {edit?.conflict && (
        <div data-testid="somni-conflict">
          <div className="somni-error" role="alert">{t('entry.conflict')}</div>
          <div className="somni-side">
            <div><div className="somni-small somni-muted">{t('entry.yours')}</div>
              <textarea className="somni-textarea" data-testid="somni-mine" value={edit.draft} onChange={(e) => setEdit({ ...edit, draft: e.target.value })} /></div>
            <div><div className="somni-small somni-muted">{t('entry.disk')}</div>
              <pre className="somni-code" data-testid="somni-disk" style={{ marginTop: 0 }}>{edit.conflict.current}</pre></div>
          </div>
          <div className="somni-row" style={{ marginTop: 8 }}>
            <button className="somni-btn somni-btn-primary" disabled={busy} onClick={() => edit.conflict && save(edit.draft, edit.conflict.version)}>{t('entry.keepMine')}</button>
            <button className="somni-btn" disabled={busy} onClick={() => { setEdit(null); reload(); }}>{t('entry.takeDisk')}</button>
          </div>
        </div>
      )}
    </div>
  );
}

/** Saves the entry as the file it is on disk, named after it (front-matter and body, byte for byte). */
function download(entry: MemoryEntry): void {
  const url = URL.createObjectURL(new Blob([entry.raw], { type: 'text/markdown;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${entry.name || 'memory'}.md`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function Shown({ entry, t, busy, onEdit, onPin, onForget, onRestore }: { entry: MemoryEntry; t: ViewProps['t']; busy: boolean; onEdit: () => void; onPin: () => void; onForget: () => void; onRestore: () => void }) {
  const description = entry.frontMatter.find((f) => f.key === 'description')?.value ?? '';
  // A team pool's entry: nothing here writes it (no Edit, Pin, Forget or Restore).
  const { origin } = entry;
  const active = !entry.archived && !origin;
  return (
    <div>
      <div className="somni-row" style={{ margin: '4px 0 8px' }}>
        <span className="somni-title somni-entry-title">{entry.name}</span>
        <span className="somni-badge">{kindLabel(entry.kind, t)}</span>
        {origin && <span className="somni-badge somni-badge-team" data-testid="somni-origin">{originLabel(origin, t)}</span>}
        {entry.archived && <span className="somni-badge">{t('browse.archived')}</span>}
        <span className="somni-spacer" />
        {active && <button className="somni-btn" disabled={busy} onClick={onEdit}>{t('entry.edit')}</button>}
        {active && <button className="somni-btn" disabled={busy} onClick={onPin}>{entry.pinned ? t('entry.unpin') : t('entry.pin')}</button>}
        {active && <button className="somni-btn somni-btn-danger" disabled={busy} onClick={onForget}>{t('entry.forget')}</button>}
        {entry.archived && !origin && entry.kind !== 'intention' && <button className="somni-btn somni-btn-primary" disabled={busy} onClick={onRestore} data-testid="somni-restore">{t('entry.restore')}</button>}
        <button className="somni-btn" onClick={() => download(entry)} data-testid="somni-download">{t('entry.download')}</button>
      </div>
      {origin && <div className="somni-note somni-muted somni-small" data-testid="somni-readonly">{t('entry.teamReadOnly', { team: origin.team, path: origin.path })}</div>}
      {entry.strength.length > 0 && (
        <div className="somni-row somni-small"><span className="somni-muted">{t('entry.strength')}</span><Sparkline points={entry.strength} /></div>
      )}
      {description && <div className="somni-secondary" data-testid="somni-description" style={{ margin: '4px 0' }}>{description}</div>}
      {/* The header's raw keys (stability, score, last_decay …) are for whoever wants them, not the entry's face. */}
      <details className="somni-small" data-testid="somni-details">
        <summary className="somni-muted">{t('entry.details')}</summary>
        <dl className="somni-fm">
          {entry.frontMatter.map((f) => [<dt key={`k-${f.key}`}>{f.key}</dt>, <dd key={`v-${f.key}`}>{f.value}</dd>])}
        </dl>
      </details>
      {/* renderMarkdown escapes raw HTML and unsafe links: the file is user-editable. */}
      <div className="somni-md" data-testid="somni-body" style={{ marginTop: 12 }} dangerouslySetInnerHTML={{ __html: renderMarkdown(entry.body) }} />
    </div>
  );
}
