/**
 * The plugin's configuration, described once: {@link SCHEMA} is a tree of leaves, each with its check
 * and its default, and everything else comes from it — the resolved type ({@link SomniConfig}), the
 * input type, the defaults ({@link DEFAULTS}) and a synchronous Standard Schema (v1) validator that
 * fills defaults and rejects wrong types or unknown keys with the path that is wrong. A new key is one
 * line here.
 *
 * A leaf without a default is the sidecar's to decide: it resolves to `undefined` when the user did
 * not set it, and the plugin then passes nothing, so the sidecar's own default is the one that runs
 * (a copy here would silently win over it).
 *
 * Why not schemastery: the plugin keeps runtime imports of DSH packages at zero (mounted by path,
 * Node would resolve `@deepseek-ai/schemastery` from the plugin's own folder, not the harness's), and
 * cordis accepts any Standard Schema object, so a small local schema avoids bundling a copy.
 */

/** One leaf of the description: what it checks, and its default (`undefined` ⇒ the sidecar's). */
interface Leaf<T> {
  readonly leaf: 'string' | 'boolean' | 'number' | 'enum' | 'record';
  readonly default: T;
  /** Returns why `value` is wrong ('' when it is fine); `at` is the dotted path. */
  readonly check: (value: unknown, at: string) => string;
}
interface Tree {
  readonly [key: string]: Leaf<unknown> | Tree;
}

const str = (def: string): Leaf<string> => ({
  leaf: 'string',
  default: def,
  check: (v, at) => (typeof v === 'string' ? '' : `${at} must be a string`),
});
const bool = (def: boolean): Leaf<boolean> => ({
  leaf: 'boolean',
  default: def,
  check: (v, at) => (typeof v === 'boolean' ? '' : `${at} must be true or false`),
});
const oneOf = <const V extends string>(values: readonly V[], def: V): Leaf<V> => ({
  leaf: 'enum',
  default: def,
  check: (v, at) =>
    typeof v === 'string' && (values as readonly string[]).includes(v) ? '' : `${at} must be one of ${values.join(', ')} (got ${JSON.stringify(v)})`,
});
interface Range {
  min?: number;
  max?: number;
  integer?: boolean;
}
function checkNumber({ min, max, integer }: Range): Leaf<unknown>['check'] {
  return (v, at) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return `${at} must be a number (got ${JSON.stringify(v)})`;
    if (integer && !Number.isInteger(v)) return `${at} must be an integer (got ${v})`;
    if ((min !== undefined && v < min) || (max !== undefined && v > max)) return `${at} must be within [${min ?? '-∞'}, ${max ?? '∞'}] (got ${v})`;
    return '';
  };
}
/** A team pool's name, as the sidecar's `team` command checks it. */
const TEAM_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
/** Team pools by name: NAME → the pool's folder. */
const teamFolders = (): Leaf<Readonly<Record<string, string>>> => ({
  leaf: 'record',
  default: {},
  check: (v, at) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return `${at} must map team names to folders (e.g. { backend: ./.somni })`;
    for (const [name, folder] of Object.entries(v)) {
      if (!TEAM_NAME.test(name)) return `${at}.${name}: a team name is lower-case letters, digits and '-' (at most 40)`;
      if (typeof folder !== 'string' || !folder.trim()) return `${at}.${name} must be the pool's folder (a non-empty string)`;
    }
    return '';
  },
});
const num = (def: number, range: Range): Leaf<number> => ({ leaf: 'number', default: def, check: checkNumber(range) });
/** A number the sidecar defaults: undefined unless the user set it. */
const sidecarNum = (range: Range): Leaf<number | undefined> => ({ leaf: 'number', default: undefined, check: checkNumber(range) });

/**
 * The largest `capture.maxMessageChars` a user may set, and the bound on what capture sends when it is
 * unset: not a cap on what is kept (the sidecar's is), only on what one pipe line and the per-session
 * buffer carry for a runaway tool output.
 */
export const CAPTURE_MAX_CHARS = 1_000_000;

/** The one description of the config tree (every key optional in a patch). */
const SCHEMA = {
  /** Memory data directory; '' ⇒ `$DSH_HOME/somni` (DSH_HOME defaulting to ~/.dsh). */
  dataDir: str(''),
  /** Sidecar executable; '' ⇒ the platform package's (`dsh-somni-<os>-<cpu>`), else the package-local `bin/` of a dev checkout. */
  binary: str(''),
  capture: {
    enabled: bool(true),
    /** Cap on one captured message; unset ⇒ the sidecar's own cap (what its session log keeps). */
    maxMessageChars: sidecarNum({ min: 200, max: CAPTURE_MAX_CHARS, integer: true }),
  },
  inject: { identity: bool(true), intentions: bool(true), discipline: bool(true) },
  assoc: {
    enabled: bool(true),
    preStep: bool(true),
    postExecute: bool(true),
    /** Hint gates; unset ⇒ the sidecar's defaults (`--assoc-threshold` etc. are not passed). */
    threshold: sidecarNum({ min: 0, max: 1 }),
    gap: sidecarNum({ min: 0, max: 1 }),
    maxItems: sidecarNum({ min: 1, max: 20, integer: true }),
  },
  tools: { enabled: bool(true) },
  dream: {
    enabled: bool(true),
    idleMs: num(15 * 60_000, { min: 1_000, integer: true }),
    /** How often the scheduler checks whether a dream is due. */
    tickMs: num(30_000, { min: 100, max: 3_600_000, integer: true }),
    maxIntervalMs: num(6 * 3_600_000, { min: 1_000, integer: true }),
    minPendingLogs: num(1, { min: 0, max: 1_000, integer: true }),
    /** Which backend the dreamer's model calls go to; the plugin acts on it (the `llm.chat` bridge), so it is always passed. */
    llm: oneOf(['host', 'openai'], 'host'),
    /** Dreamer iteration cap; 0 ⇒ the sidecar's own rule. */
    maxIterations: num(0, { min: 0, max: 10_000, integer: true }),
    /** After a compaction of a main session, dream over that session's log at once (a nap). */
    napOnCompaction: bool(false),
    openai: { baseUrl: str(''), apiKeyEnv: str('OPENAI_API_KEY'), model: str('') },
  },
  embed: {
    /** Which embedder the sidecar uses for recall; the plugin acts on it (finding the model package), so it is always passed. */
    provider: oneOf(['local', 'http', 'hash', 'off'], 'local'),
    modelDir: str(''),
    baseUrl: str(''),
    /** Name of the host environment variable holding the embedding API key ('' ⇒ none). */
    apiKeyEnv: str(''),
  },
  /** Log level of both halves: the plugin filters its own lines with it, so it is always passed and both agree. */
  logLevel: oneOf(['debug', 'info', 'warning', 'error'], 'info'),
  /** IANA time zone the sidecar counts days in ("Europe/Berlin"); '' ⇒ the machine's. */
  timezone: str(''),
  sync: {
    /**
     * How often a memory under git sync (`somni-sidecar sync init REMOTE`) syncs by itself while the sidecar
     * runs: a duration such as '30s', '5m', '1h', or 'off'; '' ⇒ the sidecar's default (5m). The sidecar
     * checks it and refuses to start on a bad value, which the plugin reports.
     */
    interval: str(''),
  },
  /**
   * Team pools mounted for this harness, NAME → folder (relative folders are the harness's working
   * directory's, so a project's own config can ship `teams: { backend: ./.somni }`). The pools
   * `somni-sidecar team add` recorded on this machine are mounted too; recall ranks every pool with
   * the personal memory and names each result's origin. Nothing is written to a pool but an explicit share.
   */
  teams: teamFolders(),
} satisfies Tree;

/** The resolved value a description stands for. */
type Resolved<N> = N extends Leaf<infer T> ? T : { -readonly [K in keyof N]: Resolved<N[K]> };
/** What a patch may give for a description: every key optional, null meaning "the default". */
type Input<N> = N extends Leaf<infer T> ? Exclude<T, undefined> | null : { [K in keyof N]?: Input<N[K]> };

/** Fully resolved plugin configuration (every key present; sidecar-defaulted leaves may be undefined). */
export type SomniConfig = Resolved<typeof SCHEMA>;
/** Deep-partial input shape accepted from a cordis patch. */
export type SomniConfigInput = Input<typeof SCHEMA>;
/** Which backend the dreamer's model calls go to. */
export type DreamLlm = SomniConfig['dream']['llm'];
/** Which embedder the sidecar uses for recall. */
export type EmbedProvider = SomniConfig['embed']['provider'];
/** Plugin (and, when set, sidecar) log level. */
export type LogLevel = SomniConfig['logLevel'];

/** One validation problem, Standard Schema style. */
export interface ConfigIssue {
  readonly message: string;
  readonly path: readonly string[];
}

function isLeaf(n: Leaf<unknown> | Tree): n is Leaf<unknown> {
  // A Tree's values are objects, so a function-valued `check` only occurs on leaves.
  return typeof n.check === 'function';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Walks the description and the input together: defaults where nothing is given, issues with their path. */
function resolve(tree: Tree, input: unknown, path: string[], issues: ConfigIssue[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (input !== undefined && input !== null && !isRecord(input)) {
    issues.push({ path, message: `dsh-somni config: ${path.join('.') || '(root)'} must be an object` });
    input = undefined;
  }
  const given: Record<string, unknown> = isRecord(input) ? input : {};
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(tree, key)) {
      const known = Object.keys(tree).join(', ');
      issues.push({ path: [...path, key], message: `dsh-somni config: unknown key ${[...path, key].join('.')} (known here: ${known})` });
    }
  }
  for (const [key, sub] of Object.entries(tree)) {
    const val = given[key];
    const at = [...path, key];
    if (!isLeaf(sub)) {
      out[key] = resolve(sub, val, at, issues);
    } else if (val === undefined || val === null) {
      out[key] = sub.default;
    } else {
      const wrong = sub.check(val, at.join('.'));
      if (wrong) issues.push({ path: at, message: `dsh-somni config: ${wrong}` });
      out[key] = val;
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
  // The walk checked every leaf against SCHEMA, which is what SomniConfig is derived from.
  const value = resolve(SCHEMA, input, [], issues) as SomniConfig;
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

/** Defaults for every key (sidecar-defaulted leaves undefined), derived from {@link SCHEMA}. */
export const DEFAULTS: SomniConfig = resolveConfig(undefined);

/** The Standard Schema v1 object cordis validates the row's config with (synchronously). */
export const Config = {
  '~standard': {
    version: 1 as const,
    vendor: 'dsh-somni',
    validate: (value: unknown): ConfigResult => parseConfig(value),
  },
};
