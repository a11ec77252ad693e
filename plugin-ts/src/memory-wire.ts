/**
 * The Memory tab's wire: what the host's `somniMemory/*` Remote methods take and return. Shared by
 * the host half (memory-api.ts) and the browser bundle (client/), so both sides name one shape.
 * Types and constants only: the browser bundle imports this file too.
 */

/** The Typert namespace: the browser calls `/api/somniMemory/<method>`. */
export const MEMORY_NAMESPACE = 'somniMemory';

/**
 * What the host accepts from the browser. The sidecar enforces the data-dir boundary itself; these
 * bounds keep an oversized request from ever crossing the pipe and say why in the error.
 */
export const MEMORY_LIMITS = {
  /** A memory file's raw text (front-matter + body) on write. */
  rawChars: 256 * 1024,
  /** A path relative to the data dir. */
  pathChars: 512,
  /** A search query or tag filter. */
  queryChars: 1024,
  /** Entries per list page. */
  listLimit: 200,
  /** Dreams listed at most. */
  dreamLimit: 100,
  /** A share proposal's id, TEAM/NAME (a team name is at most 40 characters, an entry name a slug). */
  shareIdChars: 256,
  /** An edited one-sentence description of a share. */
  descriptionChars: 1024,
} as const;

/**
 * Where a team pool's entry lives (absent for the personal memory's). Such an entry is read-only in the
 * tab: its wire path is `team:NAME/<path>`, and nothing writes a pool but an approved share.
 */
export interface TeamOrigin {
  team: string;
  /** Who shared it, when the entry says. */
  sharedBy?: string;
  /** In the pool's folder: knowledge/NAME/SKILL.md. */
  path: string;
  /** A team repository somni syncs (`team sync`); false for a folder of the project's own repository. */
  cloned: boolean;
}
export interface MemoryHit {
  score: number;
  why: string;
}
export interface MemoryListEntry {
  path: string;
  name: string;
  kind: string;
  type: string;
  description: string;
  score?: number;
  stability?: number;
  lastUsed?: string;
  created?: string;
  tags: string[];
  pinned: boolean;
  archived: boolean;
  hit?: MemoryHit;
  origin?: TeamOrigin;
}
export interface MemoryList {
  total: number;
  entries: MemoryListEntry[];
}
export interface MemoryListQuery {
  kind?: string;
  query?: string;
  tag?: string;
  since?: string;
  until?: string;
  archived?: boolean;
  limit?: number;
  offset?: number;
}
export interface MemoryEntry {
  path: string;
  kind: string;
  name: string;
  raw: string;
  version: string;
  frontMatter: { key: string; value: string }[];
  body: string;
  pinned: boolean;
  archived: boolean;
  /** Score by day: the past from the file and the usage journal, then the lifecycle's decay ahead (`projected`). */
  strength: { day: string; value: number; event: string; projected: boolean }[];
  /** A team pool's entry: where it lives; the tab shows it read-only. */
  origin?: TeamOrigin;
}
/** A write either lands or meets a newer file on disk, whose text comes back so nothing is lost. */
export type MemoryWriteResult =
  | { status: 'written'; version: string; redacted: boolean }
  | { status: 'conflict'; current: string; version: string };

export interface SessionMemoryItem {
  name: string;
  path: string;
  score: number;
  why: string;
}
export interface SessionMemoryEvent {
  time: string;
  /** `compaction`: memory carried into a compaction summary (added by the host half; `text` is the block). */
  kind: 'hint' | 'recall' | 'intention' | 'compaction' | string;
  tool: string;
  query: string;
  text: string;
  items: SessionMemoryItem[];
  /** The session's turn it happened in (1-based) and the start of what the user said then; added by the host half. */
  turn?: number;
  turnSaid?: string;
}
/** One turn of a live session as the harness logged it: when it started and what the user said. */
export interface TurnMark {
  start: number;
  said: string;
}
export interface Dream {
  id: string;
  path: string;
  trigger: string;
  started: string;
  durationMs: number;
  tokens: number;
  status: string;
  created: string[];
  updated: string[];
  archived: string[];
  diff: string;
  diary: string;
  /** Each entry the dream changed, as undoing it names it (none from a sidecar or a record without them). */
  changes: DreamChange[];
}
/** One entry a dream changed: `op` created, updated or archived; `path` where the dream left it (archived: where it was). */
export interface DreamChange {
  op: string;
  path: string;
  /** Whether the record holds what undoing it needs (an update past the record's bound does not). */
  undoable: boolean;
}
/** The entries one undo (`revertDream`) may name: a dream's record holds at most this many. */
export const DREAM_UNDO_PATHS = 500;
/**
 * What undoing one change did: `reverted` (the entry as before the dream; a created one archived),
 * `edited` (changed since the dream, kept as it is), `gone` (nothing left to undo), `refused` (`why`).
 */
export interface DreamUndone {
  path: string;
  op: string;
  outcome: string;
  /** Where the entry is now: archived to, restored to, or kept at. */
  now?: string;
  why?: string;
  /** For an entry kept: when it last changed, and the later dream that changed it, when one did. */
  changedAt?: string;
  changedBy?: string;
}
/** A JSON value the tab renders generically (doctor findings and index counts vary by sidecar version). */
export type Plain = string | number | boolean | null | Plain[] | { [key: string]: Plain };
/** A knowledge entry a person writes in the tab (`memory.create`); `type` '' is fact. */
// A type, not an interface: the sidecar call takes it as a JSON record.
export type NewMemory = {
  name: string;
  type?: string;
  description: string;
  body: string;
};
/** A mounted team pool (`team.list`): `remote` (credentials left out) only for a cloned team repository. */
export interface TeamPool {
  name: string;
  folder: string;
  remote?: string;
  /** Synced by `team sync`; false for a folder of the project's own repository. */
  cloned: boolean;
  entries: number;
}
/** A share the model proposed (`share.list`), waiting for a person; `id` is TEAM/NAME. */
export interface ShareProposal {
  id: string;
  team: string;
  name: string;
  type: string;
  description: string;
  body: string;
  /** Local time, YYYY-MM-DDTHH:MM:SS. */
  proposed: string;
  /** The conversation it came from, when known. */
  session?: string;
}
/** What `share.approve` wrote: `path` in the pool, `file` absolute, `next` how it reaches the team. */
export interface SharedEntry {
  team: string;
  name: string;
  path: string;
  file: string;
  sharedBy: string;
  next: string;
  /** What could not be done beside the write (the lock file kept out of git status). */
  note?: string;
}
/** The memory's archive for the tab's Export: every Markdown file of memory/ and skills/, as a .tar.gz. */
export interface MemoryExport {
  /** A file name for the download (somni-memory-YYYY-MM-DD.tar.gz). */
  name: string;
  /** Markdown files in it, and their size before compression. */
  files: number;
  bytes: number;
  /** The .tar.gz, base64. */
  archive: string;
}
/** How far the search index has got: what the tab's index line polls while it builds. */
export interface IndexStatus {
  entries: number;
  embedded: number;
  /** Entries still waiting for a vector. */
  pending: number;
  syncing: boolean;
}
export interface MemoryHealth {
  doctor: Plain[];
  index: { [key: string]: Plain };
  /** Entries by kind. */
  entries: { [kind: string]: number };
  pendingLogs: number;
  logTail: string[];
  /** Why the log's tail could not be read, when it could not. */
  logError?: string;
  /** Where git sync stands; absent when the data dir is not under sync. */
  sync?: SyncState;
}
/**
 * Where git sync stands, as the sidecar reads it from files (never by running git): its own last
 * automatic round, else the last round's record. `remote` (credentials left out) only in
 * memory.health; `failed` only for the sidecar's own round, `lastAt` '' before the first round.
 */
export interface SyncState {
  remote?: string;
  inStep: boolean;
  lastAt: string;
  said: string;
  failed: boolean;
}
export interface DreamStatus {
  sleeping: boolean;
  pendingLogs: number;
  step?: number;
  maxSteps?: number;
  startedAt?: string;
  /** The outcome of the last dream this host started from the tab, once it ended. */
  last?: { status: string; summary: string; reason: string };
}
