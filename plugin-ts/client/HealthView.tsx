/** Health: git sync, the doctor's findings, index counts, pending logs and the log's tail; Export. */
import { useState } from 'react';
import type { Plain, SyncState } from '../src/memory-wire.js';
import { Status, fmtTime, useLoad, type ViewProps } from './common.js';

const text = (v: Plain): string => (typeof v === 'string' ? v : JSON.stringify(v));

export function HealthView({ api, t }: ViewProps) {
  const { value, error, loading, reload } = useLoad(() => api.health(), [api]);
  return (
    <div data-testid="somni-health">
      <div className="somni-row">
        <button className="somni-btn" onClick={reload}>{t('refresh')}</button>
        <ExportButton api={api} t={t} />
      </div>
      <Status t={t} error={error} loading={loading} empty={!value} />
      {value && (
        <>
          {value.sync && <SyncCard sync={value.sync} t={t} />}
          <h4>{t('health.doctor')}</h4>
          {value.doctor.length === 0 && <div className="somni-ok">{t('health.clean')}</div>}
          {value.doctor.map((f, i) => (
            <div className="somni-card somni-small" key={i}>
              {f !== null && typeof f === 'object' && !Array.isArray(f)
                ? Object.entries(f).map(([k, v]) => <div key={k}><span className="somni-muted">{k}: </span>{text(v)}</div>)
                : text(f)}
            </div>
          ))}
          <h4>{t('health.entries')}</h4>
          <table className="somni-table"><tbody>
            {Object.entries(value.entries).map(([k, v]) => <tr key={`e-${k}`}><td className="somni-muted">{k}</td><td>{v}</td></tr>)}
          </tbody></table>
          <h4>{t('health.index')}</h4>
          <table className="somni-table"><tbody>
            {Object.entries(value.index).map(([k, v]) => <tr key={k}><td className="somni-muted">{k}</td><td>{text(v)}</td></tr>)}
          </tbody></table>
          <p>{t('health.pending', { n: value.pendingLogs })}</p>
          <h4>{t('health.log')}</h4>
          {value.logError && <div className="somni-error">{value.logError}</div>}
          {value.logTail.length > 0 ? <pre className="somni-pre somni-card">{value.logTail.join('\n')}</pre> : <div className="somni-muted">{t('empty')}</div>}
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
      <h4>{t('health.sync')}</h4>
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
