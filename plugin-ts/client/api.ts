/**
 * The tab's calls to the host half (`somniMemory/*` over `/api`), typed by the shared wire. Each call
 * resolves to a value or throws an Error carrying the host's message: views show it as it is.
 */
import { MEMORY_NAMESPACE } from '../src/memory-wire.js';
import type { DreamStatus, Dream, DreamUndone, IndexStatus, MemoryEntry, MemoryExport, MemoryHealth, MemoryList, MemoryListQuery, MemoryWriteResult, NewMemory, SessionMemoryEvent, ShareProposal, SharedEntry, TeamPool } from '../src/memory-wire.js';

/** The web client's `ctx.connection.rpc` as far as the tab uses it. */
export interface ClientRpc {
  call(channel: string, endpoint: string, payload: unknown, signal?: AbortSignal): Promise<RpcResult>;
}
export type RpcResult = { ok: true; value: unknown } | { ok: false; error: { code?: string; message?: string } };

export interface MemoryApi {
  list(q: MemoryListQuery): Promise<MemoryList>;
  read(path: string): Promise<MemoryEntry>;
  write(path: string, raw: string, version: string): Promise<MemoryWriteResult>;
  forget(path: string, version?: string): Promise<{ archivedTo: string }>;
  restore(path: string, version?: string): Promise<{ restoredTo: string }>;
  create(m: NewMemory): Promise<{ path: string }>;
  pin(path: string, pinned: boolean, version?: string): Promise<{ version: string }>;
  session(sessionId: string): Promise<{ events: SessionMemoryEvent[] }>;
  dreams(limit?: number): Promise<{ dreams: Dream[] }>;
  /** Undoes a dream's changes: those of `paths`, or the whole dream. */
  revertDream(dream: string, paths?: string[]): Promise<{ undone: DreamUndone[] }>;
  health(): Promise<MemoryHealth>;
  /** The index's counters alone: what the index line polls (health runs doctor; this does not). */
  indexStatus(): Promise<IndexStatus>;
  exportAll(): Promise<MemoryExport>;
  dreamStart(): Promise<{ started: boolean; reason: string }>;
  dreamStatus(): Promise<DreamStatus>;
  dreamCancel(): Promise<{ cancelled: boolean }>;
  teams(): Promise<{ teams: TeamPool[] }>;
  proposals(): Promise<{ proposals: ShareProposal[] }>;
  /** Approves a proposal, with an edited description or body (undefined keeps the proposal's). */
  approve(id: string, edit?: { description?: string; body?: string }): Promise<SharedEntry>;
  reject(id: string): Promise<{ rejected: string }>;
}

/** Drops undefined fields: the gateway rejects unknown wire names, never missing ones. */
function args(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

export function memoryApi(rpc: ClientRpc): MemoryApi {
  // The views trust the host's checked shapes: the host half decodes every sidecar reply (methods.ts).
  const call = async <T>(method: string, a: Record<string, unknown>): Promise<T> => {
    let r: RpcResult;
    try {
      r = await rpc.call('/api', `${MEMORY_NAMESPACE}/${method}`, { args: args(a) });
    } catch (err) {
      throw new Error(err instanceof Error ? err.message : String(err));
    }
    if (!r.ok) throw new Error(r.error.message || r.error.code || 'request failed');
    return r.value as T;
  };
  return {
    list: (q) => call('list', { ...q }),
    read: (path) => call('read', { path }),
    write: (path, raw, version) => call('write', { path, raw, version }),
    forget: (path, version) => call('forget', { path, version }),
    restore: (path, version) => call('restore', { path, version }),
    create: (m) => call('create', { name: m.name, type: m.type, description: m.description, body: m.body }),
    pin: (path, pinned, version) => call('pin', { path, pinned, version }),
    session: (sessionId) => call('session', { sessionId }),
    dreams: (limit) => call('dreams', { limit }),
    revertDream: (dream, paths) => call('revertDream', { dream, paths }),
    health: () => call('health', {}),
    indexStatus: () => call('indexStatus', {}),
    exportAll: () => call('exportAll', {}),
    dreamStart: () => call('dreamStart', {}),
    dreamStatus: () => call('dreamStatus', {}),
    dreamCancel: () => call('dreamCancel', {}),
    teams: () => call('teams', {}),
    proposals: () => call('proposals', {}),
    approve: (id, edit) => call('approve', { id, description: edit?.description, body: edit?.body }),
    reject: (id) => call('reject', { id }),
  };
}
