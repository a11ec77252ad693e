/**
 * The plugin's configuration: a typed default tree, and a synchronous Standard Schema (v1) validator
 * that fills defaults and rejects wrong types or unknown keys with the path that is wrong.
 *
 * Why not schemastery: the plugin keeps runtime imports of DSH packages at zero (mounted by path,
 * Node would resolve `@deepseek-ai/schemastery` from the plugin's own folder, not the harness's), and
 * cordis accepts any Standard Schema object, so a small local schema avoids bundling a copy.
 */

/** Which backend the dreamer's model calls go to. */
export type DreamLlm = 'host' | 'openai';
/** Which embedder the sidecar uses for recall. */
export type EmbedProvider = 'local' | 'http' | 'hash' | 'off';
/** Sidecar log level (its stderr lines are re-emitted at their own level). */
export type LogLevel = 'debug' | 'info' | 'warning' | 'error';

/** Fully resolved plugin configuration (every key present after validation). */
export interface SomniConfig {
  /** Memory data directory; '' ⇒ `$DSH_HOME/somni` (DSH_HOME defaulting to ~/.dsh). */
  dataDir: string;
  /** Sidecar executable; '' ⇒ the platform package's (`dsh-somni-<os>-<cpu>`), else the package-local `bin/` of a dev checkout. */
  binary: string;
  capture: { enabled: boolean; maxMessageChars: number };
  inject: { identity: boolean; intentions: boolean; discipline: boolean };
  assoc: {
    enabled: boolean;
    preStep: boolean;
    postExecute: boolean;
    threshold: number;
    gap: number;
    maxItems: number;
  };
  tools: { enabled: boolean };
  dream: {
    enabled: boolean;
    idleMs: number;
    /** How often the scheduler checks whether a dream is due. */
    tickMs: number;
    maxIntervalMs: number;
    minPendingLogs: number;
    llm: DreamLlm;
    /** Dreamer iteration cap; 0 ⇒ the sidecar's own rule. */
    maxIterations: number;
    openai: { baseUrl: string; apiKeyEnv: string; model: string };
  };
  embed: {
    provider: EmbedProvider;
    modelDir: string;
    baseUrl: string;
    /** Name of the host environment variable holding the embedding API key ('' ⇒ none). */
    apiKeyEnv: string;
  };
  logLevel: LogLevel;
  /** IANA time zone the sidecar counts days in ("Europe/Berlin"); '' ⇒ the machine's. */
  timezone: string;
}

/** Deep-partial input shape accepted from a cordis patch. */
export type SomniConfigInput = {
  [K in keyof SomniConfig]?: SomniConfig[K] extends object ? DeepPartial<SomniConfig[K]> : SomniConfig[K];
};
type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** Defaults for every key. */
export const DEFAULTS: SomniConfig = Object.freeze({
  dataDir: '',
  binary: '',
  capture: { enabled: true, maxMessageChars: 4000 },
  inject: { identity: true, intentions: true, discipline: true },
  assoc: { enabled: true, preStep: true, postExecute: true, threshold: 0.52, gap: 0.04, maxItems: 2 },
  tools: { enabled: true },
  dream: {
    enabled: true,
    idleMs: 15 * 60_000,
    tickMs: 30_000,
    maxIntervalMs: 6 * 3_600_000,
    minPendingLogs: 1,
    llm: 'host',
    maxIterations: 0,
    openai: { baseUrl: '', apiKeyEnv: 'OPENAI_API_KEY', model: '' },
  },
  embed: { provider: 'local', modelDir: '', baseUrl: '', apiKeyEnv: '' },
  logLevel: 'info',
  timezone: '',
}) as SomniConfig;

type Leaf =
  | { kind: 'string' }
  | { kind: 'boolean' }
  | { kind: 'number'; min?: number; max?: number; integer?: boolean }
  | { kind: 'enum'; values: readonly string[] };
interface Node {
  [key: string]: Leaf | Node;
}

const str: Leaf = { kind: 'string' };
const bool: Leaf = { kind: 'boolean' };
const num = (min?: number, max?: number, integer = false): Leaf => ({ kind: 'number', min, max, integer });

/** Shape of the config tree: drives validation and the unknown-key check. */
const SHAPE: Node = {
  dataDir: str,
  binary: str,
  capture: { enabled: bool, maxMessageChars: num(200, 1_000_000, true) },
  inject: { identity: bool, intentions: bool, discipline: bool },
  assoc: {
    enabled: bool,
    preStep: bool,
    postExecute: bool,
    threshold: num(0, 1),
    gap: num(0, 1),
    maxItems: num(1, 20, true),
  },
  tools: { enabled: bool },
  dream: {
    enabled: bool,
    idleMs: num(1_000, undefined, true),
    tickMs: num(100, 3_600_000, true),
    maxIntervalMs: num(1_000, undefined, true),
    minPendingLogs: num(0, 1_000, true),
    llm: { kind: 'enum', values: ['host', 'openai'] },
    maxIterations: num(0, 10_000, true),
    openai: { baseUrl: str, apiKeyEnv: str, model: str },
  },
  embed: {
    provider: { kind: 'enum', values: ['local', 'http', 'hash', 'off'] },
    modelDir: str,
    baseUrl: str,
    apiKeyEnv: str,
  },
  logLevel: { kind: 'enum', values: ['debug', 'info', 'warning', 'error'] },
  timezone: str,
};

/** One validation problem, Standard Schema style. */
export interface ConfigIssue {
  readonly message: string;
  readonly path: readonly string[];
}

function isLeaf(n: Leaf | Node): n is Leaf {
  // A Node's values are objects, so a string `kind` only occurs on leaves.
  return typeof (n as { kind?: unknown }).kind === 'string';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkLeaf(leaf: Leaf, value: unknown, path: string[], issues: ConfigIssue[]): unknown {
  const at = path.join('.');
  switch (leaf.kind) {
    case 'string':
      if (typeof value !== 'string') issues.push({ path, message: `dsh-somni config: ${at} must be a string` });
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') issues.push({ path, message: `dsh-somni config: ${at} must be true or false` });
      return value;
    case 'enum':
      if (typeof value !== 'string' || !leaf.values.includes(value)) {
        issues.push({ path, message: `dsh-somni config: ${at} must be one of ${leaf.values.join(', ')} (got ${JSON.stringify(value)})` });
      }
      return value;
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        issues.push({ path, message: `dsh-somni config: ${at} must be a number (got ${JSON.stringify(value)})` });
      } else if (leaf.integer && !Number.isInteger(value)) {
        issues.push({ path, message: `dsh-somni config: ${at} must be an integer (got ${value})` });
      } else if ((leaf.min !== undefined && value < leaf.min) || (leaf.max !== undefined && value > leaf.max)) {
        issues.push({ path, message: `dsh-somni config: ${at} must be within [${leaf.min ?? '-∞'}, ${leaf.max ?? '∞'}] (got ${value})` });
      }
      return value;
    }
  }
}

function merge(shape: Node, defaults: Record<string, unknown>, input: unknown, path: string[], issues: ConfigIssue[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (input !== undefined && input !== null && !isRecord(input)) {
    issues.push({ path, message: `dsh-somni config: ${path.join('.') || '(root)'} must be an object` });
    input = undefined;
  }
  const given: Record<string, unknown> = isRecord(input) ? input : {};
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(shape, key)) {
      const known = Object.keys(shape).join(', ');
      issues.push({ path: [...path, key], message: `dsh-somni config: unknown key ${[...path, key].join('.')} (known here: ${known})` });
    }
  }
  for (const [key, sub] of Object.entries(shape)) {
    const def = defaults[key];
    const val = given[key];
    if (isLeaf(sub)) {
      out[key] = val === undefined || val === null ? def : checkLeaf(sub, val, [...path, key], issues);
    } else {
      out[key] = merge(sub, def as Record<string, unknown>, val, [...path, key], issues);
    }
  }
  return out;
}

/** Validation result in the Standard Schema v1 shape. */
export type ConfigResult = { readonly value: SomniConfig; readonly issues?: undefined } | { readonly issues: readonly ConfigIssue[] };

/**
 * Validates a raw config value, filling defaults; returns issues instead of throwing.
 * @param input - the row's `config` as cordis hands it over (may be undefined).
 */
export function parseConfig(input: unknown): ConfigResult {
  const issues: ConfigIssue[] = [];
  const value = merge(SHAPE, DEFAULTS as unknown as Record<string, unknown>, input, [], issues) as unknown as SomniConfig;
  if (issues.length > 0) return { issues };
  return { value };
}

/**
 * Validates and throws one Error listing every problem; used by tests and `apply` as a guard.
 * @param input - raw config.
 */
export function resolveConfig(input: unknown): SomniConfig {
  const r = parseConfig(input);
  if (r.issues) throw new Error(r.issues.map((i) => i.message).join('\n'));
  return r.value;
}

/** The Standard Schema v1 object cordis validates the row's config with (synchronously). */
export const Config = {
  '~standard': {
    version: 1 as const,
    vendor: 'dsh-somni',
    validate: (value: unknown): ConfigResult => parseConfig(value),
  },
};
