/**
 * The host half of the web client's Memory tab: a Typert Remote service (`somniMemory/<method>` over
 * `/api`) whose methods check what the browser sent, bound it, and forward it to the sidecar with a
 * deadline. The sidecar enforces the data-dir boundary on every path; the bounds here keep an
 * oversized request off the pipe and say why.
 *
 * Module identity: the gateway finds Remote methods through markers kept in a module-private WeakMap
 * of `@deepseek-ai/dsh-typert-protocol`, so this must use the harness's own copy. The plugin keeps no
 * static runtime import of DSH packages (it is also mounted by path), so the module is imported
 * dynamically: as the running `dsh` resolves it, else from the plugin's location (installed, that
 * resolves through the profile to the harness). When neither works, the tab's service is absent and
 * everything else runs as before.
 */
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Context } from '@deepseek-ai/cordis';
import type { SessionEvent } from '@deepseek-ai/dsh-session';
import { blocksText } from './capture.js';
import { clip } from './clip.js';
import { DEADLINES } from './deadlines.js';
import type { DreamOutcome } from './dream.js';
import { DREAM_UNDO_PATHS, MEMORY_LIMITS, MEMORY_NAMESPACE } from './memory-wire.js';
import type { DreamStatus, MemoryListQuery, MemoryWriteResult, SessionMemoryEvent, TurnMark } from './memory-wire.js';
import { CONFLICT_CODE, type CallOf } from './methods.js';
import { RpcError, type Json } from './rpc.js';

const PROTOCOL = '@deepseek-ai/dsh-typert-protocol';

/** What the tab uses of dsh-typert-protocol (declared locally: the package is not a build dependency). */
export interface TypertProtocol {
  TypertRemoteService: abstract new (ctx: Context, serviceKey: string) => object;
  Remote: (method: (...args: never[]) => unknown, context: ClassMethodDecoratorContext) => void;
}

type MemoryMethod = 'memory.list' | 'memory.read' | 'memory.write' | 'memory.forget' | 'memory.restore' | 'memory.create' | 'memory.pin' | 'memory.session' | 'memory.dreams' | 'memory.health' | 'memory.indexStatus' | 'memory.export' | 'sleep.status' | 'sleep.cancel'
  | 'team.list' | 'share.list' | 'share.approve' | 'share.reject' | 'memory.revertDream';
export interface MemoryApiDeps {
  call: CallOf<MemoryMethod>;
  /** Starts a dream through the plugin's scheduler (shared with dream_now and the idle timer). */
  runDream: (trigger: string) => Promise<DreamOutcome>;
  dreamRunning: () => boolean;
  /** The live session's turns, oldest first (none for a session the host does not hold). */
  turns: (sessionId: string) => TurnMark[];
  /** The session's compactions that carried memory into their summary, newest first (host-side events). */
  carried?: (sessionId: string) => SessionMemoryEvent[];
  log: { warn(f: string, ...a: unknown[]): void };
}

/**
 * A session's turns from its event log: each `turn/start`, and the first text the person typed in that
 * turn (injected messages — hints, notices, checkpoints — are not what the user said).
 */
export function turnMarks(events: readonly SessionEvent[]): TurnMark[] {
  const out: TurnMark[] = [];
  for (const e of events) {
    if (e.type === 'turn/start') out.push({ start: e.time, said: '' });
    else if (e.type === 'user/message' && e.data.source.kind === 'user' && out.length > 0 && out[out.length - 1]!.said === '') {
      out[out.length - 1]!.said = blocksText(e.data.content).split(/\s+/).filter(Boolean).join(' ');
    }
  }
  return out;
}

/** How much of what the user said a session event's turn link repeats. */
const TURN_SAID_CHARS = 80;

/**
 * Links each event to the turn it happened in: the last turn that started at or before it. The sidecar
 * keeps times, the harness keeps turns; both clocks are this machine's.
 */
export function withTurns(events: readonly SessionMemoryEvent[], turns: readonly TurnMark[]): SessionMemoryEvent[] {
  return events.map((e) => {
    const at = Date.parse(e.time);
    let i = -1;
    for (let k = 0; k < turns.length && turns[k]!.start <= at; k++) i = k;
    if (i < 0) return e;
    return { ...e, turn: i + 1, turnSaid: clip(turns[i]!.said, TURN_SAID_CHARS, 'ellipsis') };
  });
}

/** Two newest-first event lists as one, newest first (equal times: the first list's event first). */
export function mergeNewestFirst(a: readonly SessionMemoryEvent[], b: readonly SessionMemoryEvent[]): SessionMemoryEvent[] {
  if (b.length === 0) return [...a];
  const at = (e: SessionMemoryEvent) => Date.parse(e.time) || 0;
  const out: SessionMemoryEvent[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && at(a[i]!) >= at(b[j]!))) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

/** Loads the harness's dsh-typert-protocol, or undefined (with why) when it cannot be found. */
export async function loadTypertProtocol(): Promise<{ mod?: TypertProtocol; why: string }> {
  // The running dsh's copy first: it is the one its gateway imported, wherever this plugin lives.
  const tries: (() => Promise<unknown>)[] = [
    async () => {
      const entry = process.argv[1];
      if (!entry) throw new Error('no dsh entry script in argv');
      return import(pathToFileURL(createRequire(realpathSync(entry)).resolve(PROTOCOL)).href);
    },
    () => import(PROTOCOL),
  ];
  const why: string[] = [];
  for (const attempt of tries) {
    try {
      const mod = (await attempt()) as Partial<TypertProtocol>;
      if (typeof mod.TypertRemoteService === 'function' && typeof mod.Remote === 'function') return { mod: mod as TypertProtocol, why: '' };
      why.push('module lacks TypertRemoteService/Remote');
    } catch (err) {
      why.push((err as Error).message.split('\n')[0] ?? '');
    }
  }
  return { why: why.join('; ') };
}

/** An argument the browser sent, checked; a bad one fails the call with the field and the bound. */
const arg = {
  str(field: string, v: unknown, max: number, required = false): string | undefined {
    if (v === undefined || v === null || v === '') {
      if (required) throw new Error(`${field} is required`);
      return undefined;
    }
    if (typeof v !== 'string') throw new Error(`${field} must be a string`);
    if (v.length > max) throw new Error(`${field} is ${v.length} characters; the limit is ${max}`);
    return v;
  },
  path(v: unknown): string {
    const p = arg.str('path', v, MEMORY_LIMITS.pathChars, true) as string;
    // The sidecar is the boundary; this only refuses what can never name a file under the data dir.
    if (p.includes('\0')) throw new Error('path contains a NUL character');
    return p;
  },
  int(field: string, v: unknown, max: number): number | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`${field} must be a non-negative integer`);
    return Math.min(v, max);
  },
  bool(field: string, v: unknown): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw new Error(`${field} must be true or false`);
    return v;
  },
};
/** Drops undefined fields (the sidecar's params and the gateway's results are plain JSON). */
function compact<O extends object>(o: O): O {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as O;
}

/**
 * What each Remote method does, apart from the class (which must be declared after the dynamic
 * import): plain functions over the sidecar call, testable without the harness.
 */
export function memoryHandlers(deps: MemoryApiDeps) {
  const T = DEADLINES.tab;
  const { call } = deps;
  let last: DreamStatus['last'];
  // All async: a refused argument is a rejected call, whoever calls.
  return {
    async list(q: { [K in keyof MemoryListQuery]: unknown }) {
      return call('memory.list', compact({
        kind: arg.str('kind', q.kind, 64),
        query: arg.str('query', q.query, MEMORY_LIMITS.queryChars),
        tag: arg.str('tag', q.tag, MEMORY_LIMITS.queryChars),
        since: arg.str('since', q.since, 64),
        until: arg.str('until', q.until, 64),
        archived: arg.bool('archived', q.archived),
        limit: arg.int('limit', q.limit, MEMORY_LIMITS.listLimit),
        offset: arg.int('offset', q.offset, Number.MAX_SAFE_INTEGER),
      }), T);
    },
    read: async (path: unknown) => call('memory.read', { path: arg.path(path) }, T),
    async write(path: unknown, raw: unknown, version: unknown): Promise<MemoryWriteResult> {
      const params = { path: arg.path(path), raw: arg.str('raw', raw, MEMORY_LIMITS.rawChars, true) as string, version: arg.str('version', version, 256) ?? '' };
      try {
        const r = await call('memory.write', params, T);
        return { status: 'written', version: r.version, redacted: r.redacted };
      } catch (err) {
        const conflict = conflictOf(err);
        if (conflict) return { status: 'conflict', ...conflict };
        throw err;
      }
    },
    forget: async (path: unknown, version: unknown) => call('memory.forget', compact({ path: arg.path(path), version: arg.str('version', version, 256) }), T),
    restore: async (path: unknown, version: unknown) => call('memory.restore', compact({ path: arg.path(path), version: arg.str('version', version, 256) }), T),
    create: async (name: unknown, type: unknown, description: unknown, body: unknown) =>
      call('memory.create', compact({
        name: arg.str('name', name, MEMORY_LIMITS.pathChars, true) as string,
        type: arg.str('type', type, 64),
        description: arg.str('description', description, MEMORY_LIMITS.queryChars, true) as string,
        body: arg.str('body', body, MEMORY_LIMITS.rawChars, true) as string,
      }), T),
    async pin(path: unknown, pinned: unknown, version: unknown) {
      const p = arg.bool('pinned', pinned);
      if (p === undefined) throw new Error('pinned is required');
      return call('memory.pin', compact({ path: arg.path(path), pinned: p, version: arg.str('version', version, 256) }), T);
    },
    async session(sessionId: unknown) {
      const id = arg.str('sessionId', sessionId, 256, true) as string;
      const r = await call('memory.session', { sessionId: id }, T);
      return { events: withTurns(mergeNewestFirst(r.events, deps.carried?.(id) ?? []), deps.turns(id)) };
    },
    dreams: async (limit: unknown) => call('memory.dreams', compact({ limit: arg.int('limit', limit, MEMORY_LIMITS.dreamLimit) }), T),
    async revertDream(dream: unknown, paths: unknown) {
      const id = arg.str('dream', dream, 64, true) as string;
      if (paths !== undefined && paths !== null && !Array.isArray(paths)) throw new Error('paths must be a list of paths');
      const ps = Array.isArray(paths) ? paths : [];
      if (ps.length > DREAM_UNDO_PATHS) throw new Error(`paths holds ${ps.length} paths; the limit is ${DREAM_UNDO_PATHS}`);
      return call('memory.revertDream', compact({ dream: id, paths: ps.length > 0 ? ps.map((p) => arg.path(p)) : undefined }), T);
    },
    health: async () => call('memory.health', {}, T),
    indexStatus: async () => call('memory.indexStatus', {}, T),
    exportAll: async () => call('memory.export', {}, T),
    dreamStart(): { started: boolean; reason: string } {
      if (deps.dreamRunning()) return { started: false, reason: 'A dream is already running.' };
      last = undefined;
      // Not awaited: a dream takes minutes; the tab polls dreamStatus.
      void deps.runDream('tab').then((o) => {
        last = { status: o.status, summary: o.text, reason: o.status === 'deep_sleep' ? '' : o.text };
      });
      return { started: true, reason: '' };
    },
    async dreamStatus(): Promise<DreamStatus> {
      const s = await call('sleep.status', {}, T);
      // The scheduler's flag covers the steps before sleep.run (capture flush, closing the logs).
      const sleeping = deps.dreamRunning() || s.sleeping === true;
      return compact({ sleeping, pendingLogs: s.pendingLogs, step: s.step, maxSteps: s.maxSteps, startedAt: s.startedAt, last: sleeping ? undefined : last });
    },
    async dreamCancel() {
      await call('sleep.cancel', {}, T);
      return { cancelled: true };
    },
    // Team pools and the shares waiting for a person. A refusal (a secret, an entry the pool already
    // has) is the sidecar's sentence, passed on as the call's error; the proposal stays.
    teams: async () => call('team.list', {}, T),
    proposals: async () => call('share.list', {}, T),
    approve: async (id: unknown, description: unknown, body: unknown) =>
      refusalAsSaid('share.approve', call('share.approve', compact({
        id: arg.str('id', id, MEMORY_LIMITS.shareIdChars, true) as string,
        description: arg.str('description', description, MEMORY_LIMITS.descriptionChars),
        body: arg.str('body', body, MEMORY_LIMITS.rawChars),
      }), T)),
    reject: async (id: unknown) => refusalAsSaid('share.reject', call('share.reject', { id: arg.str('id', id, MEMORY_LIMITS.shareIdChars, true) as string }, T)),
  };
}

/**
 * A share the sidecar refused (-32602: a secret, an entry the pool already has, no such proposal) as its
 * own sentence, for a person to read: without the method's name the pipe puts in front.
 */
async function refusalAsSaid<R>(method: string, reply: Promise<R>): Promise<R> {
  try {
    return await reply;
  } catch (err) {
    if (err instanceof RpcError && err.code === -32602 && err.message.startsWith(`${method}: `)) throw new Error(err.message.slice(method.length + 2));
    throw err;
  }
}

/** A write conflict's disk side, when the error is one. */
function conflictOf(err: unknown): { current: string; version: string } | undefined {
  if (!(err instanceof RpcError) || err.code !== CONFLICT_CODE) return undefined;
  const d = err.data as { [key: string]: Json } | undefined;
  if (!d || typeof d !== 'object' || typeof d.current !== 'string' || typeof d.version !== 'string') return undefined;
  return { current: d.current, version: d.version };
}

/**
 * Registers the Remote service on `ctx` once the protocol module is loaded. Never throws: a failure
 * leaves the tab without its data, and says why in the log.
 */
export async function registerMemoryApi(ctx: Context, deps: MemoryApiDeps): Promise<boolean> {
  const { mod, why } = await loadTypertProtocol();
  if (!mod) {
    deps.log.warn('Memory tab: %s not loadable (%s); the web tab has no data', PROTOCOL, why);
    return false;
  }
  try {
    ctx.plugin(memoryApiClass(mod, memoryHandlers(deps)));
    return true;
  } catch (err) {
    deps.log.warn('Memory tab: the %s service could not be registered: %s', MEMORY_NAMESPACE, (err as Error).message);
    return false;
  }
}

/**
 * The service class, declared over the loaded module. Parameter names are the wire field names (the
 * gateway reads them from the method source): `sessionId`, never `session`, which would make the
 * gateway resume a cold session just to draw a tab. Identifiers only, no defaults or destructuring.
 */
function memoryApiClass(mod: TypertProtocol, h: ReturnType<typeof memoryHandlers>) {
  const { TypertRemoteService, Remote } = mod;
  class SomniMemoryApi extends TypertRemoteService {
    constructor(ctx: Context) {
      super(ctx, MEMORY_NAMESPACE);
    }
    @Remote async list(kind: unknown, query: unknown, tag: unknown, since: unknown, until: unknown, archived: unknown, limit: unknown, offset: unknown) {
      return h.list({ kind, query, tag, since, until, archived, limit, offset });
    }
    @Remote async read(path: unknown) {
      return h.read(path);
    }
    @Remote async write(path: unknown, raw: unknown, version: unknown) {
      return h.write(path, raw, version);
    }
    @Remote async forget(path: unknown, version: unknown) {
      return h.forget(path, version);
    }
    @Remote async restore(path: unknown, version: unknown) {
      return h.restore(path, version);
    }
    @Remote async create(name: unknown, type: unknown, description: unknown, body: unknown) {
      return h.create(name, type, description, body);
    }
    @Remote async pin(path: unknown, pinned: unknown, version: unknown) {
      return h.pin(path, pinned, version);
    }
    @Remote async session(sessionId: unknown) {
      return h.session(sessionId);
    }
    @Remote async dreams(limit: unknown) {
      return h.dreams(limit);
    }
    @Remote async revertDream(dream: unknown, paths: unknown) {
      return h.revertDream(dream, paths);
    }
    @Remote async health() {
      return h.health();
    }
    @Remote async indexStatus() {
      return h.indexStatus();
    }
    @Remote async exportAll() {
      return h.exportAll();
    }
    @Remote async dreamStart() {
      return h.dreamStart();
    }
    @Remote async dreamStatus() {
      return h.dreamStatus();
    }
    @Remote async dreamCancel() {
      return h.dreamCancel();
    }
    @Remote async teams() {
      return h.teams();
    }
    @Remote async proposals() {
      return h.proposals();
    }
    @Remote async approve(id: unknown, description: unknown, body: unknown) {
      return h.approve(id, description, body);
    }
    @Remote async reject(id: unknown) {
      return h.reject(id);
    }
  }
  return SomniMemoryApi;
}
