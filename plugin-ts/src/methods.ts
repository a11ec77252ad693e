/**
 * The sidecar's JSON-RPC methods in one table: each name with its params and result type, and a
 * small runtime check per method that turns the reply into that type (or throws), so every caller
 * names methods through the table and reads checked results instead of casting what came over the pipe.
 * The shapes are the sidecar's (internal/sidecar/methods.go); test/unit/fake-shape.test.mjs checks the
 * JavaScript fake against the real binary.
 */
import type { Dream, DreamUndone, MemoryEntry, IndexStatus, MemoryExport, MemoryHealth, MemoryList, MemoryListEntry, NewMemory, Plain, SessionMemoryEvent, ShareProposal, SharedEntry, SyncState, TeamOrigin, TeamPool } from './memory-wire.js';
import type { Json } from './rpc.js';
import { RpcError } from './rpc.js';

/** `ping` result. */
export interface PingInfo {
  version: string;
  dataDir: string;
  memoryDir: string;
  skillDir: string;
  llm: string;
  vector: boolean;
  pendingLogs: number;
  /**
   * The embedder in use, when the sidecar reports it: `degraded` says why the configured local
   * embedder is not used ('' when it is). Older sidecars do not send it.
   */
  embed?: { provider: string; id: string; degraded: string };
  /** How far the background embedder is; older sidecars do not send it. */
  index?: { entries: number; embedded: number; pending: number };
  /** Where git sync stands (no remote); absent when the data dir is not under sync, or from older sidecars. */
  sync?: SyncState;
}

/** One entry of `tools.list`, reduced to what the harness enforces. */
export interface SidecarTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** `prompt.build` result: the three section texts. */
export interface PromptTexts {
  identity: string;
  intentions: string;
  discipline: string;
}

/**
 * `session.digest` result: what somni knows that bears on a session, as text for a compaction summary
 * ('' when it has nothing to say), and how many intentions, memories and session statements it cites.
 */
export interface Digest {
  text: string;
  intentions: number;
  memories: number;
  statements: number;
}

/** `sleep.run` result (wire names kept: `token_usage` is the dreamer's own record). */
export interface SleepRun {
  status: string;
  summary: string;
  reason: string;
  token_usage?: { total_tokens?: number };
}

type Empty = Record<string, never>;
/** A JSON object as params: optional keys may be left out (undefined is not sent). */
type Obj = { [key: string]: Json | undefined };

/** Method name → params → result. */
export interface MethodTable {
  ping: { params: Empty; result: PingInfo };
  shutdown: { params: Empty; result: Obj };
  'prompt.build': { params: { currentMessage?: string }; result: PromptTexts };
  'session.append': { params: { sessionId: string; role: 'user' | 'assistant'; text: string }; result: Obj };
  'session.tool': { params: { sessionId: string; call: string; result: string }; result: Obj };
  'session.close': { params: { sessionId: string }; result: { path: string | null } };
  'session.closeAll': { params: Empty; result: { closed: number } };
  'assoc.thought': { params: { sessionId: string; cue: string; iterNo: number }; result: { hint: string } };
  'assoc.action': { params: { sessionId: string; toolName: string; args: { [key: string]: Json } }; result: { hint: string } };
  'assoc.reset': { params: { sessionId: string }; result: Obj };
  'tools.list': { params: Empty; result: { tools: SidecarTool[] } };
  'tools.call': { params: { name: string; args: { [key: string]: Json }; sessionId?: string }; result: { result: Json } };
  'sleep.status': { params: Empty; result: SleepStatus };
  'session.digest': { params: { sessionId: string; maxChars: number }; result: Digest };
  /** With `sessionId` (a nap): that session's live log is closed and only its pending logs are dreamt over. */
  'sleep.run': { params: { trigger: string; sessionId?: string }; result: SleepRun };
  'sleep.cancel': { params: Empty; result: Obj };
  'memory.list': { params: { kind?: string; query?: string; tag?: string; since?: string; until?: string; archived?: boolean; limit?: number; offset?: number }; result: MemoryList };
  'memory.read': { params: { path: string }; result: MemoryEntry };
  'memory.write': { params: { path: string; raw: string; version: string }; result: { version: string; redacted: boolean } };
  'memory.forget': { params: { path: string; version?: string }; result: { archivedTo: string } };
  'memory.restore': { params: { path: string; version?: string }; result: { restoredTo: string } };
  'memory.create': { params: NewMemory; result: { path: string } };
  'memory.pin': { params: { path: string; pinned: boolean; version?: string }; result: { version: string } };
  'memory.session': { params: { sessionId: string }; result: { events: SessionMemoryEvent[] } };
  'memory.dreams': { params: { limit?: number }; result: { dreams: Dream[] } };
  /** Undoes a dream's changes (those of `paths`, or all), each a compare-and-swap against what the dream wrote. */
  'memory.revertDream': { params: { dream: string; paths?: string[] }; result: { undone: DreamUndone[] } };
  'memory.health': { params: Empty; result: MemoryHealth };
  /** The index's own counters, without doctor, a sync or the log: cheap enough to poll. */
  'memory.indexStatus': { params: Empty; result: IndexStatus };
  /** The memory's Markdown as a .tar.gz (base64), bounded by the sidecar: the tab's Export. */
  'memory.export': { params: Empty; result: MemoryExport };
  /** The team pools mounted beside the personal memory. */
  'team.list': { params: Empty; result: { teams: TeamPool[] } };
  /** The shares the model proposed (share_memory), waiting for a person. */
  'share.list': { params: Empty; result: { proposals: ShareProposal[] } };
  /** Writes the proposal into its team's pool, with an edited description or body ('' keeps the proposal's). */
  'share.approve': { params: { id: string; description?: string; body?: string }; result: SharedEntry };
  /** Drops the proposal; nothing of it is kept. */
  'share.reject': { params: { id: string }; result: { rejected: string } };
}

/** `sleep.status` result; `sleeping`, `step`, `maxSteps` and `startedAt` only from sidecars that send them. */
export interface SleepStatus {
  pendingLogs: number;
  sleeping?: boolean;
  step?: number;
  maxSteps?: number;
  startedAt?: string;
}

/** The JSON-RPC error code the sidecar answers a `memory.write` conflict with; its `data` is `{current, version}`. */
export const CONFLICT_CODE = -32010;
/** A method the plugin calls on the sidecar. */
export type Method = keyof MethodTable;
export type ParamsOf<M extends Method> = MethodTable[M]['params'];
export type ResultOf<M extends Method> = MethodTable[M]['result'];

/** How features reach the sidecar: a table method, its params, a timeout, an optional abort. */
export type Call = <M extends Method>(method: M, params: ParamsOf<M>, timeoutMs: number, signal?: AbortSignal) => Promise<ResultOf<M>>;
/** A {@link Call} limited to some methods (what one feature may use). */
export type CallOf<S extends Method> = <M extends S>(method: M, params: ParamsOf<M>, timeoutMs: number, signal?: AbortSignal) => Promise<ResultOf<M>>;

/** The reverse call the sidecar makes on the plugin (answered by llm-bridge.ts, which checks its own params). */
export const LLM_CHAT = 'llm.chat';

function isRecord(v: unknown): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
/** The reply as an object, or a protocol error naming the method. */
function object(method: string, raw: Json): { [key: string]: Json } {
  if (!isRecord(raw)) throw new RpcError(`${method}: reply is not an object (${JSON.stringify(raw)?.slice(0, 100)})`, -32603);
  return raw;
}
const s = (v: Json | undefined): string => (typeof v === 'string' ? v : '');
const n = (v: Json | undefined): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const b = (v: Json | undefined): boolean => v === true;
const strings = (v: Json | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const records = (v: Json | undefined): { [key: string]: Json }[] => (Array.isArray(v) ? v.filter(isRecord) : []);
/** An optional finite number: absent stays absent (JSON-safe for the browser). */
const on = (v: Json | undefined): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const os = (v: Json | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
/** Drops undefined fields: results go to the browser as JSON and the gateway checks they are JSON-safe. */
function defined<O extends object>(o: O): O {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as O;
}

/** Sanitises a sidecar parameter schema to the harness's enforced JSON-Schema subset. */
const KEEP = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'oneOf', 'description', 'title', 'default', 'examples']);
export function sanitizeSchema(node: unknown): Record<string, unknown> {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (!KEEP.has(k)) continue;
    if (k === 'properties' && typeof v === 'object' && v !== null) {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([p, sub]) => [p, sanitizeSchema(sub)]));
    } else if (k === 'items') {
      out[k] = sanitizeSchema(v);
    } else if (k === 'oneOf' && Array.isArray(v)) {
      out[k] = v.map(sanitizeSchema);
    } else if (k === 'type' && Array.isArray(v)) {
      out[k] = v.find((t) => t !== 'null') ?? 'string';
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** Checks a `tools.list` reply: entries with a usable name, schemas reduced to the harness's subset. */
export function toSidecarTools(raw: unknown): SidecarTool[] {
  const list = isRecord(raw) ? raw.tools : undefined;
  if (!Array.isArray(list)) throw new Error('tools.list: reply has no tools array');
  return list.flatMap((t): SidecarTool[] => {
    if (!isRecord(t)) return [];
    if (typeof t.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(t.name)) return [];
    const params = sanitizeSchema(t.parameters);
    return [{ name: t.name, description: s(t.description), parameters: { ...params, type: 'object', properties: params.properties ?? {} } }];
  });
}

/** Checks a `prompt.build` reply; a missing section is empty. */
export function toPromptTexts(raw: unknown): PromptTexts {
  const r = isRecord(raw) ? raw : {};
  return { identity: s(r.identity), intentions: s(r.intentions), discipline: s(r.discipline) };
}

/** Checks a `ping` reply; missing fields read as unknown, `embed` only when the sidecar sends it. */
export function toPingInfo(raw: Json): PingInfo {
  const r = object('ping', raw);
  const e = r.embed;
  return {
    version: typeof r.version === 'string' ? r.version : '?',
    dataDir: s(r.dataDir),
    memoryDir: s(r.memoryDir),
    skillDir: s(r.skillDir),
    llm: s(r.llm),
    vector: r.vector === true,
    pendingLogs: n(r.pendingLogs),
    ...(isRecord(e) ? { embed: { provider: s(e.provider), id: s(e.id), degraded: s(e.degraded).trim() } } : {}),
    ...(isRecord(r.index) ? { index: { entries: n(r.index.entries), embedded: n(r.index.embedded), pending: n(r.index.pending) } } : {}),
    ...(isRecord(r.sync) ? { sync: toSyncState(r.sync) } : {}),
  };
}

/** Checks ping's and memory.health's `sync`; `remote` only when the sidecar sends one. */
function toSyncState(r: { [key: string]: Json }): SyncState {
  const remote = s(r.remote);
  return { ...(remote ? { remote } : {}), inStep: b(r.inStep), lastAt: s(r.lastAt), said: s(r.said).trim(), failed: b(r.failed) };
}

const hint = (method: string) => (raw: Json): { hint: string } => ({ hint: s(object(method, raw).hint).trim() });
/** An acknowledgement: the reply must be an object, but the plugin reads none of its fields. */
const acknowledgement = (method: string) => (raw: Json): Obj => object(method, raw);

/** The runtime check of each method's reply. */
const DECODE: { readonly [M in Method]: (raw: Json) => ResultOf<M> } = {
  ping: toPingInfo,
  shutdown: acknowledgement('shutdown'),
  'prompt.build': (raw) => toPromptTexts(object('prompt.build', raw)),
  'session.append': acknowledgement('session.append'),
  'session.tool': acknowledgement('session.tool'),
  'session.close': (raw) => {
    const p = object('session.close', raw).path;
    return { path: typeof p === 'string' ? p : null };
  },
  'session.closeAll': (raw) => ({ closed: n(object('session.closeAll', raw).closed) }),
  'assoc.thought': hint('assoc.thought'),
  'assoc.action': hint('assoc.action'),
  'assoc.reset': acknowledgement('assoc.reset'),
  'tools.list': (raw) => ({ tools: toSidecarTools(raw) }),
  'tools.call': (raw) => ({ result: object('tools.call', raw).result ?? null }),
  'session.digest': (raw) => {
    const r = object('session.digest', raw);
    return { text: s(r.text), intentions: n(r.intentions), memories: n(r.memories), statements: n(r.statements) };
  },
  'sleep.status': (raw) => {
    const r = object('sleep.status', raw);
    return defined({ pendingLogs: n(r.pendingLogs), sleeping: typeof r.sleeping === 'boolean' ? r.sleeping : undefined, step: on(r.step), maxSteps: on(r.maxSteps), startedAt: os(r.startedAt) });
  },
  'sleep.run': (raw) => {
    const r = object('sleep.run', raw);
    const usage = r.token_usage;
    const total = isRecord(usage) && typeof usage.total_tokens === 'number' ? usage.total_tokens : undefined;
    return { status: s(r.status), summary: s(r.summary), reason: s(r.reason), ...(total === undefined ? {} : { token_usage: { total_tokens: total } }) };
  },
  'sleep.cancel': acknowledgement('sleep.cancel'),
  'memory.list': (raw) => {
    const r = object('memory.list', raw);
    return { total: n(r.total), entries: records(r.entries).map(toListEntry) };
  },
  'memory.read': (raw) => toMemoryEntry(object('memory.read', raw)),
  'memory.write': (raw) => {
    const r = object('memory.write', raw);
    // The sidecar counts the secrets its write redacted; the tab only says whether it did.
    return { version: s(r.version), redacted: b(r.redacted) || n(r.redacted) > 0 };
  },
  'memory.forget': (raw) => ({ archivedTo: s(object('memory.forget', raw).archivedTo) }),
  'memory.restore': (raw) => ({ restoredTo: s(object('memory.restore', raw).restoredTo) }),
  'memory.create': (raw) => ({ path: s(object('memory.create', raw).path) }),
  'memory.pin': (raw) => ({ version: s(object('memory.pin', raw).version) }),
  'memory.session': (raw) => ({ events: records(object('memory.session', raw).events).map(toSessionEvent) }),
  'memory.dreams': (raw) => ({ dreams: records(object('memory.dreams', raw).dreams).map(toDream) }),
  'memory.revertDream': (raw) => ({
    undone: records(object('memory.revertDream', raw).undone).map((u) => defined({
      path: s(u.path), op: s(u.op), outcome: s(u.outcome), now: os(u.now) || undefined, why: os(u.why) || undefined,
      changedAt: os(u.changedAt) || undefined, changedBy: os(u.changedBy) || undefined,
    })),
  }),
  'memory.health': (raw) => {
    const r = object('memory.health', raw);
    return { doctor: Array.isArray(r.doctor) ? r.doctor.map(plain) : [], index: isRecord(r.index) ? plainRecord(r.index) : {}, entries: counts(r.entries), pendingLogs: n(r.pendingLogs), logTail: strings(r.logTail), ...(typeof r.logError === 'string' && r.logError ? { logError: r.logError } : {}), ...(isRecord(r.sync) ? { sync: toSyncState(r.sync) } : {}) };
  },
  'memory.indexStatus': (raw) => {
    const r = object('memory.indexStatus', raw);
    return { entries: n(r.entries), embedded: n(r.embedded), pending: n(r.pending), syncing: b(r.syncing) };
  },
  'memory.export': (raw) => {
    const r = object('memory.export', raw);
    return { name: s(r.name), files: n(r.files), bytes: n(r.bytes), archive: s(r.archive) };
  },
  'team.list': (raw) => ({ teams: records(object('team.list', raw).teams).map(toTeamPool) }),
  'share.list': (raw) => ({ proposals: records(object('share.list', raw).proposals).map(toProposal) }),
  'share.approve': (raw) => {
    const r = object('share.approve', raw);
    return defined({ team: s(r.team), name: s(r.name), path: s(r.path), file: s(r.file), sharedBy: s(r.sharedBy), next: s(r.next), note: os(r.note) || undefined });
  },
  'share.reject': (raw) => ({ rejected: s(object('share.reject', raw).rejected) }),
};

function toTeamPool(t: { [key: string]: Json }): TeamPool {
  return defined({ name: s(t.name), folder: s(t.folder), remote: os(t.remote) || undefined, cloned: b(t.cloned), entries: n(t.entries) });
}
function toProposal(p: { [key: string]: Json }): ShareProposal {
  return defined({
    id: s(p.id), team: s(p.team), name: s(p.name), type: s(p.type), description: s(p.description), body: s(p.body),
    proposed: s(p.proposed), session: os(p.session) || undefined,
  });
}

function toListEntry(e: { [key: string]: Json }): MemoryListEntry {
  const hit = isRecord(e.hit) ? { score: n(e.hit.score), why: s(e.hit.why) } : undefined;
  return defined({
    path: s(e.path), name: s(e.name), kind: s(e.kind), type: s(e.type), description: s(e.description),
    score: on(e.score), stability: on(e.stability), lastUsed: os(e.lastUsed), created: os(e.created),
    tags: strings(e.tags), pinned: b(e.pinned), archived: b(e.archived), hit, origin: toOrigin(e.origin),
  });
}
/** A team pool entry's origin; undefined for a personal entry (or a reply without a team name). */
function toOrigin(v: Json | undefined): TeamOrigin | undefined {
  if (!isRecord(v) || !s(v.team)) return undefined;
  return defined({ team: s(v.team), sharedBy: os(v.sharedBy) || undefined, path: s(v.path), cloned: b(v.cloned) });
}
function toMemoryEntry(r: { [key: string]: Json }): MemoryEntry {
  return defined({
    path: s(r.path), kind: s(r.kind), name: s(r.name), raw: s(r.raw), version: s(r.version),
    frontMatter: records(r.frontMatter).map((f) => ({ key: s(f.key), value: typeof f.value === 'string' ? f.value : JSON.stringify(f.value ?? '') })),
    body: s(r.body), pinned: b(r.pinned), archived: b(r.archived),
    strength: records(r.strength).map((p) => ({ day: s(p.day), value: n(p.value), event: s(p.event), projected: p.projected === true })),
    origin: toOrigin(r.origin),
  });
}
function toSessionEvent(e: { [key: string]: Json }): SessionMemoryEvent {
  return {
    time: s(e.time), kind: s(e.kind), tool: s(e.tool), query: s(e.query), text: s(e.text),
    items: records(e.items).map((i) => ({ name: s(i.name), path: s(i.path), score: n(i.score), why: s(i.why) })),
  };
}
function toDream(d: { [key: string]: Json }): Dream {
  return {
    id: s(d.id), path: s(d.path), trigger: s(d.trigger), started: s(d.started), durationMs: n(d.durationMs), tokens: n(d.tokens),
    status: s(d.status), created: strings(d.created), updated: strings(d.updated), archived: strings(d.archived), diff: s(d.diff), diary: s(d.diary),
    // Undoable: the record names what the dream left (after) and, for an update, kept its text from before.
    changes: records(d.changes).map((c) => ({ op: s(c.op), path: s(c.path), undoable: s(c.after) !== '' && (s(c.op) !== 'updated' || c.kept === true) })),
  };
}
function counts(v: Json | undefined): { [key: string]: number } {
  return isRecord(v) ? Object.fromEntries(Object.entries(v).map(([k, c]) => [k, n(c)])) : {};
}
/** Any JSON as the browser may take it: non-finite numbers become null. */
function plain(v: Json): Plain {
  if (Array.isArray(v)) return v.map(plain);
  if (isRecord(v)) return plainRecord(v);
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  return v;
}
function plainRecord(r: { [key: string]: Json }): { [key: string]: Plain } {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)]));
}

/** Every method of the table (the fake/real shape test walks them). */
export const METHODS = Object.keys(DECODE) as Method[];

/**
 * Checks one reply against its method's shape.
 * @throws RpcError when the reply is not the object the method returns.
 */
export function decodeResult<M extends Method>(method: M, raw: Json): ResultOf<M> {
  const decode: (raw: Json) => ResultOf<M> = DECODE[method];
  return decode(raw);
}
