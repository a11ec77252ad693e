/** Health: git sync, the doctor's findings, index counts, pending logs and the log's tail; Export. */
import { useState } from 'react';
import type { Plain, SyncState } from '../src/memory-wire.js';
import { Status, fmtTime, kindLabel, useLoad, type ViewProps } from './common.js';
import type { Key, T } from './locale.js';

const text = (v: Plain): string => (typeof v === 'string' ? v : JSON.stringify(v));
/** The index's counters a person reads, in this order; the rest (the embedder's id) waits under More. */
const INDEX_KEYS = ['entries', 'embedded', 'pending', 'semanticReady', 'embedderLabel', 'lastSync'];

/** One index counter in words: yes/no as ready/not yet, a time in the tab's language. */
function indexValue(key: string, v: Plain, t: T): string {
  if (typeof v === 'boolean') return t(v ? 'health.ready' : 'health.notReady');
  if (key === 'lastSync' && typeof v === 'string') return fmtTime(v, t);
  if (typeof v === 'number') return v.toLocaleString(t('date.locale'));
  return text(v);
}

export function HealthView({ api, t }: ViewProps) {
  const { value, error, loading, reload } = useLoad(() => api.health(), [api]);
  return (
    <div data-testid="somni-health">
      <div className="somni-bar">
        <button className="somni-btn" onClick={reload}>{t('refresh')}</button>
        <ExportButton api={api} t={t} />
      </div>
      <Status t={t} error={error} loading={loading} empty={!value} />
      {value && (
        <>
          {value.sync && <SyncCard sync={value.sync} t={t} />}
          <h3 className="somni-h">{t('health.doctor')}</h3>
          {value.doctor.length === 0 && <div className="somni-ok">{t('health.clean')}</div>}
          {value.doctor.map((f, i) => (
            <div className="somni-card somni-small" key={i}>
              {f !== null && typeof f === 'object' && !Array.isArray(f)
                ? Object.entries(f).map(([k, v]) => <div key={k}><span className="somni-muted">{k}: </span>{text(v)}</div>)
                : text(f)}
            </div>
          ))}
          <h3 className="somni-h">{t('health.entries')}</h3>
          <dl className="somni-fm" data-testid="somni-health-entries">
            {Object.entries(value.entries).map(([k, v]) => [<dt key={`k-${k}`}>{kindLabel(k, t)}</dt>, <dd key={`v-${k}`}>{v.toLocaleString(t('date.locale'))}</dd>])}
          </dl>
          <h3 className="somni-h">{t('health.index')}</h3>
          <dl className="somni-fm" data-testid="somni-health-index">
            {INDEX_KEYS.filter((k) => k in value.index).map((k) => [<dt key={`k-${k}`}>{t(`health.ix.${k}` as Key)}</dt>, <dd key={`v-${k}`}>{indexValue(k, value.index[k] ?? null, t)}</dd>])}
          </dl>
          {Object.keys(value.index).some((k) => !INDEX_KEYS.includes(k)) && (
            <details className="somni-small">
              <summary>{t('health.more')}</summary>
              <dl className="somni-fm">
                {Object.entries(value.index).filter(([k]) => !INDEX_KEYS.includes(k)).map(([k, v]) => [<dt key={`k-${k}`}>{k}</dt>, <dd key={`v-${k}`}>{text(v)}</dd>])}
              </dl>
            </details>
          )}
          <p className="somni-secondary" style={{ fontSize: 13 }}>{t('health.pending', { n: value.pendingLogs })}</p>
          <h3 className="somni-h">{t('health.log')}</h3>
          {value.logError && <div className="somni-error">{value.logError}</div>}
          {value.logTail.length > 0 ? <pre className="somni-code">{value.logTail.join('\n')}</pre> : <div className="somni-empty">{t('empty')}</div>}
        </>
      )}
    </div>
  );
}

/** Where git sync stands: in step, waiting or failed, with the remote and what the last round said. */
function SyncCard({ sync, t }: { sync: SyncState; t: ViewProps['t'] }) {
  const [cls, state] = sync.failed ? ['somni-error', 'health.syncFailed'] as const : sync.inStep ? ['somni-ok', 'health.syncInStep'] as const : ['somni-muted', 'health.syncBehind'] as const;
  return (
    <div data-testid="somni-health-sync">
      <h3 className="somni-h">{t('health.sync')}</h3>
      <div className={cls}>{t(state)}</div>
      <div className="somni-card somni-small">
        {sync.remote && <div>{t('health.syncRemote', { remote: sync.remote })}</div>}
        <div>{sync.lastAt ? t('health.syncLast', { when: fmtTime(sync.lastAt, t) }) : t('health.syncNever')}</div>
        {sync.said && <div className="somni-muted">{sync.said}</div>}
      </div>
    </div>
  );
}

/**
 * Export: the memory's Markdown as the .tar.gz `somni-sidecar export` writes, saved by the browser.
 * Unpacked, it is a data dir; a memory too large for one reply is told to use the CLI.
 */
function ExportButton({ api, t }: Pick<ViewProps, 'api' | 't'>) {
  const [state, setState] = useState<{ busy: boolean; ok?: boolean; text?: string }>({ busy: false });
  const run = async () => {
    setState({ busy: true });
    try {
      const x = await api.exportAll();
      const bin = atob(x.archive);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      const url = URL.createObjectURL(new Blob([bytes], { type: 'application/gzip' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = x.name;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      setState({ busy: false, ok: true, text: t('health.exported', { n: x.files, name: x.name }) });
    } catch (err) {
      setState({ busy: false, ok: false, text: err instanceof Error ? err.message : String(err) });
    }
  };
  return (
    <>
      <button className="somni-btn" disabled={state.busy} onClick={() => void run()} data-testid="somni-export">{t('health.export')}</button>
      {state.text && <span className={state.ok ? 'somni-ok' : 'somni-error'} role="status">{state.text}</span>}
    </>
  );
}
