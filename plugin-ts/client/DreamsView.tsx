/** Dreams: each one's diary, duration, tokens, what it changed and its diff; Dream now / Cancel. */
import { useEffect, useState } from 'react';
import type { Dream, DreamStatus, DreamUndone } from '../src/memory-wire.js';
import { Status, fmtTime, useLoad, wordFor, type ViewProps } from './common.js';
import type { T } from './locale.js';
import { renderMarkdown } from './markdown.js';

const POLL_MS = 1_000;

export function DreamsView({ api, t, open }: ViewProps) {
  const { value, error, loading, reload } = useLoad(() => api.dreams(30), [api]);
  const [status, setStatus] = useState<DreamStatus | null>(null);
  const [err, setErr] = useState('');
  const sleeping = status?.sleeping === true;
  useEffect(() => {
    let stop = false;
    let wasSleeping = false;
    let lastSeen = '';
    const tick = async () => {
      try {
        const s = await api.dreamStatus();
        if (stop) return;
        setStatus(s);
        // A dream that just ended has a new entry in the list; a short one may end between two polls,
        // so a new outcome counts as an end too.
        const outcome = s.last ? JSON.stringify(s.last) : '';
        if ((wasSleeping && !s.sleeping) || (outcome && outcome !== lastSeen)) reload();
        wasSleeping = s.sleeping;
        lastSeen = outcome;
      } catch (e) {
        if (!stop) setErr(e instanceof Error ? e.message : String(e));
      }
    };
    void tick();
    const timer = setInterval(tick, POLL_MS);
    return () => { stop = true; clearInterval(timer); };
  }, [api, reload]);
  const start = async () => {
    setErr('');
    try {
      const r = await api.dreamStart();
      if (!r.started) setErr(r.reason);
      setStatus(await api.dreamStatus());
    } catch (e) {
      setErr(e instanceof Error ? e.message : String(e));
    }
  };
  // Each dream's undo outcomes, newest first, by dream id (kept while the view is open).
  const [undone, setUndone] = useState<Record<string, DreamUndone[]>>({});
  const [busy, setBusy] = useState('');
  const undo = async (d: Dream, path?: string) => {
    if (!path && !window.confirm(t('dreams.undoConfirm', { when: fmtTime(d.started, t) }))) return;
    setErr('');
    setBusy(d.id + (path ?? ''));
    try {
      const r = await api.revertDream(d.id, path ? [path] : undefined);
      setUndone((u) => ({ ...u, [d.id]: [...r.undone, ...(u[d.id] ?? []).filter((o) => !r.undone.some((n) => n.path === o.path))] }));
    } catch (e) {
      setErr(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy('');
    }
  };
  const dreams = value?.dreams ?? [];
  return (
    <div data-testid="somni-dreams">
      <div className="somni-bar">
        <button className="somni-btn somni-btn-primary" disabled={sleeping} onClick={start} data-testid="somni-dream-now">{t('dreams.now')}</button>
        {sleeping && <button className="somni-btn somni-btn-danger" onClick={() => void api.dreamCancel().catch((e: unknown) => setErr(String(e)))}>{t('dreams.cancel')}</button>}
        <button className="somni-btn" onClick={reload}>{t('refresh')}</button>
        {sleeping && <span className="somni-row somni-small somni-secondary" data-testid="somni-dreaming"><span className="somni-spinner" />{status?.step !== undefined && status.maxSteps ? t('dreams.running', { step: status.step, max: status.maxSteps }) : t('dreams.runningNoStep')}</span>}
        {status && !sleeping && <span className="somni-muted somni-small">{t('dreams.pending', { n: status.pendingLogs })}</span>}
      </div>
      {status?.last && !sleeping && <div className="somni-list-head" data-testid="somni-dream-last">{t('dreams.last', { status: wordFor('dreamStatus', status.last.status, t), summary: status.last.summary || status.last.reason })}</div>}
      {err && <div className="somni-error" role="alert">{err}</div>}
      <Status t={t} error={error} loading={loading} empty={dreams.length === 0} title="dreams.empty" hint="dreams.emptyHint" />
      {dreams.map((d) => (
        <div className="somni-card" key={d.id} data-testid="somni-dream">
          <div className="somni-row">
            <span className="somni-title">{fmtTime(d.started, t)}</span>
            <span className="somni-badge">{wordFor('dreamTrigger', d.trigger, t)}</span>
            <span className={`somni-badge${d.status === 'deep_sleep' ? ' somni-badge-ok' : d.status === 'error' ? ' somni-badge-warn' : ''}`}>{wordFor('dreamStatus', d.status, t)}</span>
            <span className="somni-muted somni-small">{t('dreams.duration', { s: (d.durationMs / 1000).toFixed(1) })} · {t('dreams.tokens', { n: d.tokens })}</span>
            {/* Offered while something of it is left to undo (what this view undid is done). */}
            {d.changes.some((c) => c.undoable && !undone[d.id]?.some((u) => u.path === c.path && (u.outcome === 'reverted' || u.outcome === 'gone'))) && <><span className="somni-spacer" /><button className="somni-btn" disabled={busy !== ''} onClick={() => void undo(d)} data-testid="somni-dream-undo">{t('dreams.undoDream')}</button></>}
          </div>
          {(['created', 'updated', 'archived'] as const).map((k) => d[k].length > 0 && (
            <div className="somni-row somni-small" key={k}>
              <span className="somni-muted">{t('dreams.what', { what: t(`dreams.${k}`) })}</span>
              {d[k].map((p) => {
                const c = d.changes.find((x) => x.path === p && x.op === k);
                // Once undone (or found with nothing to undo), the entry's Undo gives way to its outcome below.
                const done = undone[d.id]?.some((u) => u.path === p && (u.outcome === 'reverted' || u.outcome === 'gone'));
                return (
                  <span key={p}>
                    {/* An entry the dream archived is no longer at p: its undo restores it. */}
                    <button className="somni-link" onClick={() => open(p)}>{p}</button>
                    {c?.undoable && !done && <> · <button className="somni-link" disabled={busy !== ''} onClick={() => void undo(d, p)} data-testid="somni-change-undo" data-path={p}>{t('dreams.undoEntry')}</button></>}
                  </span>
                );
              })}
            </div>
          ))}
          {undone[d.id] && <Undone list={undone[d.id]!} t={t} open={open} />}
          {/* The diary is the model's Markdown: rendered like an entry's body (raw HTML escaped), its front-matter left out. */}
          {d.diary && <details open><summary className="somni-small">{t('dreams.diary')}</summary><div className="somni-md" data-testid="somni-diary" dangerouslySetInnerHTML={{ __html: renderMarkdown(withoutFrontMatter(d.diary)) }} /></details>}
          {d.diff && <details open><summary className="somni-small">{t('dreams.diff')}</summary><Diff text={d.diff} /></details>}
        </div>
      ))}
    </div>
  );
}

/** What an undo did, entry by entry: undone, or kept because it changed since the dream (when, and by which dream). */
function Undone({ list, t, open }: { list: DreamUndone[]; t: T; open: (path: string) => void }) {
  if (list.length === 0) return <div className="somni-muted somni-small" data-testid="somni-undone">{t('dreams.undo.nothing')}</div>;
  return (
    <ul className="somni-small somni-note" data-testid="somni-undone" style={{ paddingLeft: 28 }}>
      {list.map((u) => (
        <li key={u.path} className={u.outcome === 'reverted' ? 'somni-ok' : u.outcome === 'refused' ? 'somni-error' : u.outcome === 'gone' ? 'somni-muted' : undefined} data-outcome={u.outcome} data-path={u.path}>
          <button className="somni-link" onClick={() => open(u.now || u.path)}>{u.path}</button>{' — '}
          {u.outcome === 'reverted' ? t(u.op === 'created' ? 'dreams.undo.reverted.created' : u.op === 'archived' ? 'dreams.undo.reverted.archived' : 'dreams.undo.reverted.updated', { now: u.now ?? '' })
            : u.outcome === 'edited' ? t('dreams.undo.edited', { when: fmtTime(u.changedAt, t) || '?' }) + (u.changedBy ? ' ' + t('dreams.undo.editedBy', { dream: u.changedBy }) : '')
            : u.outcome === 'gone' ? (u.why || t('dreams.undo.gone'))
            : t('dreams.undo.refused', { why: u.why ?? '' })}
        </li>
      ))}
    </ul>
  );
}

function Diff({ text }: { text: string }) {
  return (
    <pre className="somni-code" data-testid="somni-diff">
      {text.split('\n').map((line, i) => (
        <div key={i} className={line.startsWith('+') && !line.startsWith('+++') ? 'somni-diff-add' : line.startsWith('-') && !line.startsWith('---') ? 'somni-diff-del' : /^(@@|\+\+\+|---)/.test(line) ? 'somni-diff-meta' : undefined}>{line || ' '}</div>
      ))}
    </pre>
  );
}

/** A diary's text after its front-matter block (the text as it is when it has none). */
function withoutFrontMatter(text: string): string {
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(text);
  return m ? text.slice(m[0].length) : text;
}
