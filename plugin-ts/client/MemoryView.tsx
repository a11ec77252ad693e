/** The Memory tab: a small navigator over the views; an entry opens over whichever view linked it. */
import { useState } from 'react';
import type { MemoryApi } from './api.js';
import { BrowseView } from './BrowseView.js';
import { DreamsView } from './DreamsView.js';
import { EntryView } from './EntryView.js';
import { HealthView } from './HealthView.js';
import { IndexProgress } from './IndexProgress.js';
import type { Key, T } from './locale.js';
import { SessionView } from './SessionView.js';
import { TeamView } from './TeamView.js';

type Pane = 'session' | 'browse' | 'team' | 'dreams' | 'health';
const PANES: Pane[] = ['session', 'browse', 'team', 'dreams', 'health'];

export interface MemoryViewProps {
  sessionId: string;
  t: T;
  api: MemoryApi;
}

export function MemoryView({ sessionId, t, api }: MemoryViewProps) {
  const [pane, setPane] = useState<Pane>('session');
  const [path, setPath] = useState<string | null>(null);
  const open = (p: string) => p && setPath(p);
  const props = { api, t, open };
  return (
    <div className="somni-root" data-testid="somni-memory">
      <div className="somni-page">
      <nav className="somni-nav" role="tablist">
        {PANES.map((p) => (
          <button key={p} role="tab" aria-selected={!path && pane === p} data-pane={p} onClick={() => { setPane(p); setPath(null); }}>
            {t(`nav.${p}` as Key)}
          </button>
        ))}
      </nav>
      <IndexProgress api={api} t={t} />
      {path ? <EntryView {...props} path={path} back={() => setPath(null)} />
        : pane === 'session' ? <SessionView {...props} sessionId={sessionId} />
        : pane === 'browse' ? <BrowseView {...props} />
        : pane === 'team' ? <TeamView {...props} />
        : pane === 'dreams' ? <DreamsView {...props} />
        : <HealthView {...props} />}
      </div>
    </div>
  );
}
