/**
 * Team: the team pools mounted beside the personal memory, and the shares the agent proposed
 * (share_memory), each waiting for a person: Approve, Edit then approve with the edits, or Reject.
 * A refusal (an entry the pool already has, a secret) is the sidecar's sentence, shown on the
 * proposal, which stays.
 */
import { useState } from 'react';
import type { ShareProposal, SharedEntry, TeamPool } from '../src/memory-wire.js';
import { Empty, Status, fmtTime, useLoad, type ViewProps } from './common.js';
import type { T } from './locale.js';
import { renderMarkdown } from './markdown.js';

type Note = { ok: boolean; text: string };
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export function TeamView({ api, t }: ViewProps) {
  const { value, error, loading, reload } = useLoad(async () => {
    const [pools, waiting] = await Promise.all([api.teams(), api.proposals()]);
    return { teams: pools.teams, proposals: waiting.proposals };
  }, [api]);
  const [note, setNote] = useState<Note | null>(null);
  const teams = value?.teams ?? [];
  const proposals = value?.proposals ?? [];
  const done = (text: string) => {
    setNote({ ok: true, text });
    reload();
  };
  return (
    <div data-testid="somni-team">
      <div className="somni-bar"><button className="somni-btn" onClick={() => { setNote(null); reload(); }}>{t('refresh')}</button></div>
      {note && <div className={note.ok ? 'somni-ok' : 'somni-error'} role="status" data-testid="somni-team-note">{note.text}</div>}
      <Status t={t} error={error} loading={loading} empty={!value} />
      {value && (
        <>
          <h3 className="somni-h">{t('team.pools')}</h3>
          {teams.length === 0 && <Empty t={t} title="team.noPools" hint="team.howMount" testid="somni-no-pools" />}
          {teams.map((p) => <PoolCard key={p.name} pool={p} t={t} />)}
          <h3 className="somni-h">{t('team.proposals')}</h3>
          {proposals.length === 0 && <Empty t={t} title="team.noProposalsTitle" hint="team.noProposals" testid="somni-no-proposals" />}
          {proposals.map((p) => <ProposalCard key={p.id} p={p} t={t} api={api} pool={teams.find((x) => x.name === p.team)} done={done} />)}
        </>
      )}
    </div>
  );
}

function PoolCard({ pool, t }: { pool: TeamPool; t: T }) {
  return (
    <div className="somni-card" data-testid="somni-pool" data-team={pool.name}>
      <div className="somni-row">
        <span className="somni-title">{pool.name}</span>
        <span className="somni-badge somni-badge-team">{pool.cloned ? t('team.clonedPool') : t('team.folderPool')}</span>
        <span className="somni-badge">{pool.entries === 1 ? t('team.oneEntry') : t('team.entries', { n: pool.entries })}</span>
      </div>
      {pool.remote && <div className="somni-small">{t('team.remote', { remote: pool.remote })}</div>}
      <div className="somni-small somni-muted">{t('team.folder', { folder: pool.folder })}</div>
    </div>
  );
}

/** What an approval says: where the entry went, and how it reaches the team. */
function outcome(r: SharedEntry, pool: TeamPool | undefined, t: T): string {
  const next = pool?.cloned ? t('team.nextSync') : pool ? t('team.nextCommit', { file: r.file }) : r.next;
  return [t('team.shared', { name: r.name, team: r.team, path: r.path }), next, r.note ?? ''].filter(Boolean).join(' ');
}

type Draft = { description: string; body: string };

function ProposalCard({ p, t, api, pool, done }: { p: ShareProposal; t: T; api: ViewProps['api']; pool: TeamPool | undefined; done: (text: string) => void }) {
  const [draft, setDraft] = useState<Draft | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const act = async (fn: () => Promise<string>) => {
    setBusy(true);
    setError('');
    try {
      done(await fn());
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  const approve = (edit?: Draft) => act(async () => outcome(await api.approve(p.id, edit), pool, t));
  const reject = () => {
    if (!window.confirm(t('team.rejectConfirm', { name: p.name, team: p.team }))) return;
    void act(async () => { await api.reject(p.id); return t('team.rejected', { name: p.name }); });
  };
  return (
    <div className="somni-card" data-testid="somni-proposal" data-id={p.id}>
      <div className="somni-row">
        <span className="somni-title">{p.name}</span>
        <span className="somni-badge somni-badge-team">{t('origin.team', { team: p.team })}</span>
        {p.type && <span className="somni-badge">{p.type}</span>}
        <span className="somni-spacer" />
        <span className="somni-muted somni-small">{t('team.proposed', { when: fmtTime(p.proposed, t) })}</span>
      </div>
      {error && <div className="somni-error" role="alert" data-testid="somni-proposal-error">{error}</div>}
      {draft ? (
        <form onSubmit={(e) => { e.preventDefault(); void approve(draft); }}>
          <div className="somni-filter-row" style={{ margin: '8px 0' }}>
            <input className="somni-input" aria-label={t('team.description')} placeholder={t('team.description')} value={draft.description} onChange={(e) => setDraft({ ...draft, description: e.target.value })} required style={{ flex: 1, minWidth: 240 }} />
          </div>
          <textarea className="somni-textarea" aria-label={t('team.body')} data-testid="somni-proposal-body" value={draft.body} onChange={(e) => setDraft({ ...draft, body: e.target.value })} style={{ minHeight: 120 }} />
          <div className="somni-row" style={{ marginTop: 8 }}>
            <button className="somni-btn somni-btn-primary" type="submit" disabled={busy}>{t('team.approveEdited')}</button>
            <button className="somni-btn somni-btn-ghost" type="button" disabled={busy} onClick={() => setDraft(null)}>{t('entry.cancel')}</button>
          </div>
        </form>
      ) : (
        <>
          {p.description && <div className="somni-secondary" data-testid="somni-proposal-description">{p.description}</div>}
          {/* The model's Markdown: rendered like an entry's body, raw HTML escaped. */}
          <div className="somni-md somni-small" dangerouslySetInnerHTML={{ __html: renderMarkdown(p.body) }} />
          <div className="somni-row" style={{ marginTop: 8 }}>
            <button className="somni-btn somni-btn-primary" disabled={busy} onClick={() => void approve()}>{t('team.approve')}</button>
            <button className="somni-btn" disabled={busy} onClick={() => setDraft({ description: p.description, body: p.body })}>{t('team.edit')}</button>
            <button className="somni-btn somni-btn-danger" disabled={busy} onClick={reject}>{t('team.reject')}</button>
          </div>
        </>
      )}
    </div>
  );
}
