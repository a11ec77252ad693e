/** This session's memory: hints shown, recalls and their results, intentions touched; newest first. */
import { useEffect } from 'react';
import { Status, fmtScore, fmtTime, wordFor, type ViewProps } from './common.js';
import { useLoad } from './common.js';
import type { Key } from './locale.js';

const POLL_MS = 5_000;

export function SessionView({ api, t, open, sessionId }: ViewProps & { sessionId: string }) {
  const { value, error, loading, reload } = useLoad(() => api.session(sessionId), [api, sessionId]);
  useEffect(() => {
    const timer = setInterval(reload, POLL_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const events = value?.events ?? [];
  return (
    <div data-testid="somni-session">
      <div className="somni-bar">
        <button className="somni-btn" onClick={reload}>{t('refresh')}</button>
      </div>
      <Status t={t} error={error} loading={loading} empty={events.length === 0} title="session.empty" hint="session.emptyHint" />
      {events.map((e, i) => (
        <div className="somni-card" key={`${e.time}-${i}`} data-kind={e.kind}>
          <div className="somni-row">
            <span className={`somni-badge somni-badge-${e.kind}`}>{labelOf(e.kind, t)}</span>
            {e.tool && <span className="somni-small somni-secondary">{wordFor('tool', e.tool, t)}</span>}
            {e.turn !== undefined && <span className="somni-muted somni-small" data-testid="somni-turn">{t('session.turn', { n: e.turn, said: e.turnSaid ?? '' })}</span>}
            <span className="somni-spacer" />
            <span className="somni-muted somni-small">{fmtTime(e.time, t)}</span>
          </div>
          {e.query && <div className="somni-muted somni-small" style={{ overflowWrap: 'anywhere' }}>{t('session.query', { query: e.query })}</div>}
          {e.kind === 'compaction' ? <CarriedBlock text={e.text} t={t} /> : e.text && <div className="somni-pre">{e.text}</div>}
          {e.items.map((it) => (
            <div className="somni-row somni-small" key={it.path || it.name}>
              <button className="somni-link" onClick={() => open(it.path)} disabled={!it.path}>{it.name || it.path}</button>
              <span className="somni-muted">{t('session.score', { score: fmtScore(it.score) })}</span>
              {it.why && <span className="somni-muted">{t('session.why', { why: it.why })}</span>}
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}

/** What a compaction's summary kept of memory: its size, and the block itself folded away. */
function CarriedBlock({ text, t }: { text: string; t: ViewProps['t'] }) {
  const lang = t('date.locale');
  const chars = text.length.toLocaleString(lang);
  const lines = text.split('\n').length.toLocaleString(lang);
  return (
    <>
      <div className="somni-muted somni-small" data-testid="somni-carried-size">{t('session.compactionKept', { chars, lines })}</div>
      <details className="somni-small">
        <summary>{t('session.compactionBlock')}</summary>
        <div className="somni-pre" data-testid="somni-carried-block">{text}</div>
      </details>
    </>
  );
}

function labelOf(kind: string, t: (k: Key) => string): string {
  if (kind === 'compaction') return t('session.compaction');
  if (kind === 'hint') return t('session.hint');
  if (kind === 'recall') return t('session.recall');
  if (kind === 'intention') return t('session.intention');
  return kind;
}
