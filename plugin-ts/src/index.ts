/**
 * dsh-somni: long-term memory for DeepSeek Harness. This file wires the somni Go sidecar into the
 * harness: capture of conversations, prompt sections, recall hints, memory tools, idle dreaming and
 * the host-model bridge for the dreamer. Runtime imports are Node built-ins only; everything from
 * `@deepseek-ai/*` is type-only (see config.ts for why).
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from '@deepseek-ai/cordis';
import type { Agent } from '@deepseek-ai/dsh-agent';
import type {} from '@deepseek-ai/dsh-agent-default-model';
import type {} from '@deepseek-ai/dsh-llm';
import type { Session } from '@deepseek-ai/dsh-session';
import type {} from '@deepseek-ai/dsh-subprocess';
import type {} from '@deepseek-ai/dsh-system-prompt';
import type {} from '@deepseek-ai/dsh-tools';
import { admittedUserText, Associator, PLUGIN_NAME } from './assoc.js';
import { HotPath } from './breaker.js';
import { Capture, isSubagent } from './capture.js';
import { CompactionMemory } from './compaction.js';
import { CAPTURE_MAX_CHARS, Config, resolveConfig, type SomniConfig } from './config.js';
import { DEADLINES, TurnBudget, withTimeout } from './deadlines.js';
import { DreamScheduler } from './dream.js';
import { explainStartFailure, resolveInstall, type Install, type Problem } from './install.js';
import { llmChatHandler } from './llm-bridge.js';
import { levelWord, LogFile, logFilePath, teeLog } from './logfile.js';
import { Notices } from './notice.js';
import { servesUi, TerminalLine } from './terminal.js';
import { registerMemoryApi, turnMarks } from './memory-api.js';
import { LLM_CHAT, toSidecarTools, type Call, type CallOf, type SidecarTool } from './methods.js';
import { PromptCache, SECTIONS } from './prompt.js';
import type { RequestHandler } from './rpc.js';
import { Sidecar, SidecarUnavailable, type Log, type PingInfo, type SidecarTrouble } from './sidecar.js';
import { SHIPPED_TOOLS_LIST } from './tool-schemas.js';
import { DREAM_NOW, dreamNowDefinition, unavailableToolDefinition, WORK_TOOL_NAMES, workToolDefinition } from './tools.js';

export { Config };
export type { SomniConfig } from './config.js';

/** Plugin name (cordis row id and message source). */
export const name = PLUGIN_NAME;

/** Services the plugin needs; boot fails loudly when one is missing. */
export const inject = ['subprocess', 'systemPrompt', 'tools', 'llm', 'agentDefaultModel', 'agents'];

/** Every call's deadline, and why: deadlines.ts. */
const T = DEADLINES;

/** Where a sidecar binary packed into the plugin itself lives (the dev and `make install` layout). */
export function packagedBinary(): string {
  return fileURLToPath(new URL(process.platform === 'win32' ? '../bin/somni-sidecar.exe' : '../bin/somni-sidecar', import.meta.url));
}

/** Resolves the data directory: config, else `$DSH_HOME/somni` (DSH_HOME defaults to ~/.dsh). */
export function dataDirOf(config: SomniConfig, env: NodeJS.ProcessEnv = process.env): string {
  if (config.dataDir) return config.dataDir.startsWith('~/') ? join(homedir(), config.dataDir.slice(2)) : config.dataDir;
  return join(env.DSH_HOME || join(homedir(), '.dsh'), 'somni');
}

/**
 * The sidecar's argv for a config (binary first).
 * @param found - model dir and ONNX Runtime library resolved from the installed packages
 *   ({@link resolveInstall}); without them, `config.embed.modelDir` is passed as configured.
 */
export function sidecarArgv(binary: string, config: SomniConfig, dataDir: string, found: Pick<Install, 'modelDir' | 'ortLib'> = { modelDir: undefined, ortLib: undefined }): string[] {
  const argv = [binary, '--data-dir', dataDir, '--llm', config.dream.llm, '--embed', config.embed.provider];
  const modelDir = found.modelDir || config.embed.modelDir;
  if (modelDir) argv.push('--embed-model-dir', modelDir);
  if (found.ortLib) argv.push('--ort-lib', found.ortLib);
  // The hint gates only when the user set them: otherwise the sidecar's own defaults apply.
  const { threshold, gap, maxItems } = config.assoc;
  if (threshold !== undefined) argv.push('--assoc-threshold', String(threshold));
  if (gap !== undefined) argv.push('--assoc-gap', String(gap));
  if (maxItems !== undefined) argv.push('--assoc-max-items', String(maxItems));
  argv.push('--log-level', config.logLevel);
  // Only when set: without the flag the sidecar uses the machine's zone.
  if (config.timezone.trim()) argv.push('--timezone', config.timezone.trim());
  if (config.sync.interval.trim()) argv.push('--sync-interval', config.sync.interval.trim());
  for (const [name, folder] of Object.entries(config.teams)) argv.push('--team', `${name}=${resolvePath(folder.trim())}`);
  return argv;
}

/** Ambient names the config owns: removed from the child unless the config sets them. */
const OWNED_ENV = /^(SOMNI_DATA_DIR|SOMNI_EMBED_\w+|SOMNI_LOG_LEVEL|SOMNI_TIMEZONE|SOMNI_SYNC_INTERVAL|SLEEP_\w+|OPENAI_\w+|MEMORY_ROOT_PATH|SKILL_ROOT_PATH)$/;

/**
 * The explicit env for the sidecar: only what the config names (the harness already strips
 * credential-shaped names, so a key is forwarded only from the variable the config points at).
 */
export function sidecarEnv(config: SomniConfig, env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const k of Object.keys(env)) if (OWNED_ENV.test(k)) out[k] = undefined;
  if (config.dream.maxIterations > 0) out.SLEEP_MAX_ITERS = String(config.dream.maxIterations);
  if (config.dream.llm === 'openai') {
    const o = config.dream.openai;
    if (o.baseUrl) out.SLEEP_BASE_URL = o.baseUrl;
    if (o.model) out.SLEEP_MODEL = o.model;
    const key = o.apiKeyEnv ? env[o.apiKeyEnv] : undefined;
    if (key) out.SLEEP_API_KEY = key;
  }
  if (config.embed.baseUrl) out.SOMNI_EMBED_BASE_URL = config.embed.baseUrl;
  const ek = config.embed.apiKeyEnv ? env[config.embed.apiKeyEnv] : undefined;
  if (ek) out.SOMNI_EMBED_API_KEY = ek;
  return out;
}

/**
 * What every phase of {@link apply} shares: the config, where the plugin logs and tells, the host's
 * capabilities, and why memory is off (if it is).
 */
interface Base {
  readonly config: SomniConfig;
  readonly dataDir: string;
  readonly logFile: LogFile;
  readonly log: Log;
  /** The sidecar's stderr reaches somni.log raw; the host logger gets it re-levelled here. */
  readonly sidecarLog: Log;
  readonly notices: Notices;
  /** The same problems as one stderr line per process, on a host without a UI of its own. */
  readonly terminal: TerminalLine;
  readonly ownMessageIds: Set<string>;
  readonly ownTools: Set<string>;
  readonly canRegisterTools: boolean;
  readonly canAddSections: boolean;
  /** The first `off` problem found while loading: the reason every memory call and tool gives. */
  offReason: string;
  /** Why the sidecar did not start, once it failed to. */
  downReason: string;
  /** Tells a problem; the first `off` one becomes {@link Base.offReason}. */
  report(problem: Problem): void;
  /** An error handler that only logs at debug level (a feature that degrades quietly). */
  quiet(what: string): (err: Error) => void;
}

/** Loading: config, logs, notices, the data directory and the host services' methods. */
function openBase(ctx: Context, rawConfig: unknown): Base {
  const config = resolveConfig(rawConfig);
  const dataDir = dataDirOf(config);
  const logFile = new LogFile(logFilePath(dataDir));
  const log: Log = teeLog(ctx.logger('somni'), logFile, 'somni', levelWord(config.logLevel));
  // The sidecar's stderr reaches somni.log raw (it already reads `<time> LEVEL logger message` and the
  // sidecar redacts it); the host logger gets it re-levelled.
  const sidecarLog: Log = ctx.logger('somni:sidecar');

  const ownMessageIds = new Set<string>();
  const notices = new Notices(log, ownMessageIds, logFile.path);
  // Memory off is a state the plugin lives in, not a boot failure: the first `off` problem found while
  // loading becomes the reason every memory call and tool gives (later trouble is the sidecar's own).
  const base: Base = {
    config, dataDir, logFile, log, sidecarLog, notices, ownMessageIds,
    terminal: new TerminalLine(() => servesUi(ctx), () => notices.list(), logFile.path),
    ownTools: new Set<string>(),
    canRegisterTools: typeof ctx.tools?.register === 'function',
    canAddSections: typeof ctx.systemPrompt?.section === 'function',
    offReason: '',
    downReason: '',
    report: (problem) => {
      notices.report(problem);
      if (problem.severity === 'off' && !base.offReason) base.offReason = problem.message;
    },
    quiet: (what) => (err) => log.debug('%s: %s', what, err.message),
  };

  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    base.report({
      key: 'data-dir',
      severity: 'off',
      message: `the memory folder ${dataDir} cannot be created (${(err as Error).message}). Memory features are off. Fix: set config.dataDir to a writable folder.`,
      summary: 'memory off: the memory folder cannot be created',
    });
  }
  // Services the plugin calls are declared in `inject`, but their methods are checked: a harness
  // whose service lacks one keeps memory off with a reason instead of throwing mid-turn.
  if (typeof ctx.subprocess?.spawn !== 'function') {
    base.report({
      key: 'host-subprocess',
      severity: 'off',
      message: 'this harness has no subprocess.spawn, so the somni sidecar cannot be started. Memory features are off. Fix: use @deepseek-ai/dsh 0.1.0-rc.8 or later.',
      summary: 'memory off: the harness cannot spawn the sidecar',
    });
  }
  if (!base.canRegisterTools) log.warn('this harness has no tools.register: memory tools are not offered');
  if (!base.canAddSections) log.warn('this harness has no systemPrompt.section: identity, intentions and discipline stay out of the prompt');
  return base;
}

/** What {@link checkInstall} found: the install, its binary, and problems that wait for the sidecar's word. */
interface Found {
  readonly install: Install;
  readonly binary: string;
  readonly provisional: Problem[];
}

/** The sidecar binary, ONNX Runtime and model as seen from outside; `off` problems are told now. */
function checkInstall(base: Base): Found {
  const { log } = base;
  const install = resolveInstall(base.config);
  for (const note of install.notes) log.info('%s', note);
  // A missing model or ONNX Runtime is what the plugin can see from outside; the sidecar may still find
  // one itself (it searches beside its binary and the model). So these wait for ping's `embed` to
  // settle: told when it confirms the fallback (or the sidecar is too old to say), dropped when the
  // local embedder loaded after all. They are logged now either way.
  const provisional: Problem[] = [];
  for (const problem of install.problems) {
    if (problem.severity === 'off') base.report(problem);
    else {
      log.warn('%s (unless the sidecar finds one itself: checked once it is up)', problem.message);
      provisional.push(problem);
    }
  }
  const binary = install.binary ?? '';
  log.info('sidecar %s (%s, %s)%s%s', binary || '(none)', install.binarySource, install.platform,
    install.modelDir ? `, model ${install.modelDir}` : '', install.ortLib ? `, onnxruntime ${install.ortLib}` : '');
  return { install, binary, provisional };
}

/** The LLM bridge: the sidecar's reverse calls the host answers (only with `dream.llm: host`). */
function hostHandlers(ctx: Context, config: SomniConfig): Record<string, RequestHandler> {
  const handlers: Record<string, RequestHandler> = {};
  if (config.dream.llm === 'host') {
    // Checked per call: a harness without these fails the dream with a reason, not the plugin.
    handlers[LLM_CHAT] = llmChatHandler({
      stream: (options) => {
        if (typeof ctx.llm?.stream !== 'function') throw new Error('this harness has no llm.stream; set dream.llm to openai');
        return ctx.llm.stream(options);
      },
      route: () => {
        if (typeof ctx.agentDefaultModel?.currentSelection !== 'function') throw new Error('this harness has no agentDefaultModel.currentSelection; set dream.llm to openai');
        const sel = ctx.agentDefaultModel.currentSelection();
        return { provider: sel.provider, model: sel.model };
      },
    });
  }
  return handlers;
}

/** Follows the sidecar's embedder, and git sync, through ping (see {@link watchEmbedder}). */
interface EmbedWatch {
  /** After a (re)start: the readiness ping's view, then polling until the index opened. */
  onReady(info: PingInfo): void;
  /** A user's turn: re-check when the last check is older than 30 s. */
  recheck(): void;
  /** Before unload: bounded checks while a problem still waits for the sidecar's word. */
  settle(): Promise<void>;
  stop(): void;
}

/**
 * Tells each session once when the sidecar's automatic git sync failed (ping's `sync.failed`: its own
 * round, not a record on disk), with git's sentence; a later round in step resolves it. A sync that
 * fails costs nothing on a turn's path, so it is a `degraded` notice, not an error.
 */
function followSync(notices: Notices, info: PingInfo): void {
  const st = info.sync;
  if (!st) return;
  if (st.failed) {
    notices.report({
      key: 'sync',
      severity: 'degraded',
      message: `the automatic git sync of memory failed: ${st.said || 'no reason given'}. Memory keeps working on this machine, and the sidecar tries again every few minutes; \`somni-sidecar sync status\` says where it stands.`,
      summary: `memory sync failed: ${st.said || 'no reason given'}`,
    });
  } else if (st.inStep) {
    notices.resolve('sync');
  }
}

/**
 * The embedder's state: ping carries `embed` (newer sidecars), and its `id`/`degraded` are known
 * only once the index is open, which is after the readiness ping.
 */
function watchEmbedder(base: Base, provisional: Problem[], sidecar: Pick<Sidecar, 'ping' | 'isUp'>): EmbedWatch {
  const { log, notices } = base;
  const settleProvisional = (confirmed: boolean): void => {
    for (const p of provisional.splice(0)) {
      if (confirmed) notices.report(p, { logged: true });
      else log.info('the sidecar loaded its local embedder after all (%s was only a guess from outside)', p.key);
    }
  };
  // Returns whether the embedder's state is settled.
  const onEmbed = (info: PingInfo): boolean => {
    const e = info.embed;
    if (!e) {
      settleProvisional(true); // an older sidecar: nothing more to learn, so the plugin's view stands
      return true;
    }
    if (e.degraded) {
      settleProvisional(true);
      const using = e.id ? ` Recall uses ${e.id} instead.` : '';
      notices.report({
        key: 'embed-degraded',
        severity: 'degraded',
        message: `the ${e.provider || 'configured'} embedder is not used: ${e.degraded}.${using} Recall still works, with weaker matching of related wording.`,
        summary: `embedder degraded: ${e.degraded}`,
      });
    } else if (e.id) {
      notices.resolve('embed-degraded');
      settleProvisional(false);
    }
    return e.degraded !== '' || e.id !== '';
  };
  let lastEmbedCheck = 0;
  const checkEmbed = (): Promise<boolean> => {
    lastEmbedCheck = Date.now();
    return sidecar.ping().then((info) => {
      followSync(notices, info);
      return onEmbed(info);
    }, (err: Error) => {
      log.debug('ping: %s', err.message);
      return false;
    });
  };
  // After a (re)start, ask again until the index opened (about a minute at most).
  let embedPoll: ReturnType<typeof setTimeout> | undefined;
  const pollEmbed = (left: number): void => {
    if (embedPoll) clearTimeout(embedPoll);
    embedPoll = setTimeout(() => {
      embedPoll = undefined;
      if (!sidecar.isUp) return;
      void checkEmbed().then((settled) => {
        if (!settled && left > 1) pollEmbed(left - 1);
      });
    }, left > 56 ? 250 : 1_000); // quick at first: the index usually opens within a second, and a one-shot run may end soon after
    embedPoll.unref?.();
  };
  return {
    onReady: (info) => {
      // A start that failed and then came up is no longer news for sessions that have not heard it.
      notices.resolve('start');
      lastEmbedCheck = Date.now();
      followSync(notices, info);
      if (!onEmbed(info)) pollEmbed(60);
    },
    recheck: () => {
      if (sidecar.isUp && Date.now() - lastEmbedCheck > 30_000) void checkEmbed();
    },
    settle: async () => {
      // The embedder's state is known once the index opened, which a short one-shot run may end
      // before: ask a few more times (4 s at most) so a confirmed fallback still reaches the terminal.
      const until = Date.now() + 4_000;
      while (provisional.length > 0 && sidecar.isUp && Date.now() < until) {
        if (await withTimeout(checkEmbed(), 1_000)) return;
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    stop: () => {
      if (embedPoll) clearTimeout(embedPoll);
    },
  };
}

/** The sidecar's trouble told as notices; memory tools then stand in with the reason. */
function troubleReporter(base: Base, binary: string, registerUnavailableTools: () => void): (t: SidecarTrouble) => void {
  return (t) => {
    if (t.kind === 'start-failed') {
      base.downReason = explainStartFailure(t.why, t.stderrTail, binary, 'Memory features are off while it is down (it is retried a few times).');
      base.notices.report({ key: 'start', severity: 'off', message: base.downReason, summary: 'memory off: the somni sidecar did not start' });
      registerUnavailableTools();
    } else {
      const tail = t.stderrTail.length > 0 ? ` Its last output: ${t.stderrTail.join(' ⏎ ')}` : '';
      base.notices.report({
        key: 'gave-up',
        severity: 'off',
        message: `the somni sidecar ${t.why} and was given up after its restarts. Memory features are off until the harness restarts.${tail}`,
        summary: 'memory off: the somni sidecar was given up after restarts',
      });
      registerUnavailableTools();
    }
  };
}

/** The prompt sections (identity, intentions, discipline) and how they are refreshed. */
interface Sections {
  readonly prompt: PromptCache;
  /** Whether any section is in the prompt (otherwise refreshing is pointless). */
  readonly anySection: boolean;
  refresh(message?: string): Promise<void>;
}

/** Prompt sections: registered with the host, their text cached from `prompt.build`. */
function promptSections(ctx: Context, base: Base, call: Call): Sections {
  const { config, canAddSections } = base;
  const prompt = new PromptCache(
    // With a message it is this turn's refresh, which the prompt waits for: the hot deadline.
    async (currentMessage) => call('prompt.build', currentMessage ? { currentMessage } : {}, currentMessage ? T.promptBuild : T.build),
    base.quiet('prompt.build'),
  );
  const anySection = canAddSections && SECTIONS.some((s) => config.inject[s.key]);
  for (const s of canAddSections ? SECTIONS : []) {
    if (!config.inject[s.key]) continue;
    ctx.systemPrompt.section({ name: s.name, order: s.order, text: () => prompt.text(s.key) });
  }
  return { prompt, anySection, refresh: (message) => (anySection ? prompt.refresh(message) : Promise.resolve()) };
}

/** A tool as the assembly lists it. */
type ToolSchema = { name: string; description: string; parameters: Record<string, unknown> };

/** The memory tools (see {@link memoryTools}). */
interface MemoryTools {
  /** The tools' schemas, for an assembly that collected its own before they were registered. */
  readonly ownSchemas: readonly ToolSchema[];
  /** Bumped whenever the set of registered tools changes. */
  generation(): number;
  /** At load: the schemas shipped in the package, whose calls wait for the sidecar. */
  registerShipped(): void;
  /** Once the sidecar answers: its own `tools.list` adds (or corrects) what the shipped file lacks. */
  register(): Promise<void>;
  /** Registers stand-ins whose calls say why memory is off, for work tools not registered yet. */
  registerUnavailable(): void;
}

/** Shipped schemas, checked the same way as a live `tools.list` reply; none when the file is unusable. */
function shippedTools(log: Log): SidecarTool[] {
  try {
    return toSidecarTools(SHIPPED_TOOLS_LIST);
  } catch (err) {
    log.warn('the shipped tool schemas are unusable (%s); memory tools wait for the sidecar', (err as Error).message);
    return [];
  }
}

/**
 * Tools. The first model request of a session must already offer them, and the sidecar may answer
 * later than that on a loaded machine, so the schemas shipped in the package are registered at load;
 * their calls go through {@link Sidecar.call}, which waits for a start in progress (bounded by the
 * start timeout). The live `tools.list` then adds tools the shipped file lacks, replaces any whose
 * schema differs and drops any the sidecar no longer has. `ownSchemas` and `generation` let the
 * assemble hook add tools registered while it waited for startup (see there).
 */
function memoryTools(ctx: Context, base: Base, call: Call, sidecar: Pick<Sidecar, 'unavailableReason'>, scheduler: DreamScheduler, refreshPrompt: () => Promise<void>): MemoryTools {
  const { config, canRegisterTools, log } = base;
  const enabled = config.tools.enabled && canRegisterTools;
  let listed = false;
  let toolsGeneration = 0;
  const ownSchemas: ToolSchema[] = [];
  /** Registered tools by name: the disposer and the schema they were registered with. */
  const registered = new Map<string, { dispose: () => void; schema: string }>();
  const schemaOf = (t: SidecarTool): string => JSON.stringify([t.description, t.parameters]);
  const register = (def: ReturnType<typeof dreamNowDefinition>, schema = ''): void => {
    const dispose = ctx.tools.register(def);
    base.ownTools.add(def.name);
    ownSchemas.push({ name: def.name, description: def.description, parameters: def.parameters as Record<string, unknown> });
    registered.set(def.name, {
      schema,
      dispose: () => {
        if (typeof dispose === 'function') dispose();
        const i = ownSchemas.findIndex((t) => t.name === def.name);
        if (i >= 0) ownSchemas.splice(i, 1);
        registered.delete(def.name);
      },
    });
  };
  const reason = (fallback = 'the somni sidecar is not running'): string => `${sidecar.unavailableReason || base.offReason || fallback} (details: ${base.logFile.path})`;
  // A call that finds the sidecar down (never started, given up, restarting) fails with the tool's
  // name and the reason, not the manager's internal state.
  const explainedCall = (name: string): CallOf<'tools.call'> => async (method, params, timeoutMs, signal) => {
    try {
      return await call(method, params, timeoutMs, signal);
    } catch (err) {
      if (err instanceof SidecarUnavailable) throw new Error(`${name} is unavailable: ${reason(base.downReason || err.message)}`);
      throw err;
    }
  };
  const registerWork = (t: SidecarTool): void =>
    register(workToolDefinition(t, { call: explainedCall(t.name), afterIntentionChange: () => withTimeout(refreshPrompt(), T.promptInTurn) }), schemaOf(t));

  const registerShipped = (): void => {
    if (!enabled || registered.size > 0) return;
    const tools = shippedTools(log);
    for (const t of tools) registerWork(t);
    register(dreamNowDefinition(scheduler));
    toolsGeneration++;
    log.info('registered %d memory tools from the shipped schemas', tools.length + 1);
  };
  // Work tools neither shipped nor listed yet (a shipped file that lost one, or none at all) get
  // stand-ins whose calls say why, so a model or a skill naming recall_memories gets the reason
  // instead of "unknown tool". A later successful listing replaces them.
  const registerUnavailable = (): void => {
    if (!enabled) return;
    const missing = WORK_TOOL_NAMES.filter((name) => !registered.has(name));
    for (const name of missing) register(unavailableToolDefinition(name, () => reason(base.downReason || undefined)), 'stand-in');
    if (!registered.has(DREAM_NOW)) register(dreamNowDefinition(scheduler));
    if (missing.length > 0) {
      toolsGeneration++;
      log.info('memory is off: registered %d stand-in memory tools that report why', missing.length);
    }
  };
  const registerTools = async (): Promise<void> => {
    if (!enabled || listed) return;
    listed = true;
    try {
      const { tools } = await call('tools.list', {}, T.list);
      const live = new Set(tools.map((t) => t.name));
      let changed = 0;
      for (const [name, r] of [...registered]) {
        if (name !== DREAM_NOW && !live.has(name)) {
          r.dispose();
          changed++;
        }
      }
      for (const t of tools) {
        const had = registered.get(t.name);
        if (had && had.schema === schemaOf(t)) continue;
        had?.dispose();
        registerWork(t);
        changed++;
      }
      if (!registered.has(DREAM_NOW)) register(dreamNowDefinition(scheduler));
      if (changed > 0) {
        toolsGeneration++;
        log.info('the sidecar\'s tools.list changed %d memory tools from the shipped schemas', changed);
      } else log.debug('the sidecar lists the %d shipped memory tools', tools.length);
    } catch (err) {
      listed = false;
      log.error('tools.list failed; memory tools keep the shipped schemas until the sidecar restarts: %s', (err as Error).message);
    }
  };
  return { ownSchemas, generation: () => toolsGeneration, registerShipped, register: registerTools, registerUnavailable };
}

/** Session and agent hooks: capture, dream idleness, per-session cleanup and prompt refreshes. */
function sessionHooks(ctx: Context, base: Base, call: Call, capture: Capture, scheduler: DreamScheduler, sections: Sections, budget: TurnBudget): void {
  const { config } = base;
  ctx.on('session/event', (session: Session, event) => {
    if (isSubagent(session.header)) return;
    if (event.type === 'user/message' || event.type === 'assistant/message' || event.type === 'tool/result') scheduler.touch();
    if (config.capture.enabled) void capture.onEvent(session.id, session.header, event);
  });
  // The harness flushes the session before every model request, tool call and step of a turn (its
  // durability checkpoints): there the capture is waited for within the turn's allowance, and goes on
  // in the background past it (in order, kept when it fails).
  ctx.on('session/flush', async (session: Session) => {
    if (!config.capture.enabled || isSubagent(session.header)) return;
    if (budget.inTurn(session.id)) await budget.wait(session.id, 'capture', capture.flush(session.id), T.capture);
    else await capture.flush(session.id);
  });
  ctx.on('session/disposed', (session: Session) => {
    base.notices.forget(session.id);
    if (isSubagent(session.header)) return;
    if (config.capture.enabled) void capture.close(session.id);
    call('assoc.reset', { sessionId: session.id }, T.background).catch(base.quiet('assoc.reset'));
  });
  ctx.on('agent/created', ({ agent }) => {
    if (!isSubagent(agent.session.header)) void sections.refresh();
  });
  ctx.on('agent/status', ({ status }) => scheduler.onAgentStatus(status));
}

/**
 * The prompt's hooks. The loop assembles the system prompt BEFORE `agent/pre-step` (dsh-agent-loop
 * rc.8, preStep()), so a refresh that should see the new message starts when the message is claimed
 * from the inbox, and the `system-prompt/assemble` waterfall waits for it (bounded) and patches our
 * sections' text.
 */
function promptHooks(ctx: Context, base: Base, startup: Promise<void>, budget: TurnBudget, sections: Sections, embed: EmbedWatch, tools: MemoryTools): void {
  const pendingRefresh = new Map<string, Promise<unknown>>();
  let started = false;
  void startup.then(() => (started = true));
  ctx.on('agent/inbox/claimed', ({ agent, message }) => {
    if (isSubagent(agent.session.header) || message.source.kind !== 'user') return;
    // An embedder can also stop working later: the user's turns re-check it, at most every 30 s.
    embed.recheck();
    if (!sections.anySection) return;
    const text = admittedUserText([message]);
    if (text) pendingRefresh.set(agent.id, sections.refresh(text));
  });
  ctx.on('system-prompt/assemble', async (assembly, context, next) => {
    // The assembly collected its tool schemas before this waterfall ran; tools registered while we
    // wait for the first start would otherwise be missing from the first model request after boot.
    const generation = tools.generation();
    const result = await next();
    // Only then wait for what our sections say — the first start, this turn's refresh — within the
    // turn's allowance, and patch their text into the assembled prompt: the rest of the waterfall never
    // waits on us. A start that takes longer (a big index opening, a hung sidecar) is not waited out to
    // its 20 s readiness deadline: the turn goes on with the sections as they are, and the start's own
    // refresh fills them for the next assembly.
    const agentId = context.agent?.id;
    if (!started) await budget.wait(agentId, 'start', startup, T.start);
    const pending = agentId === undefined ? undefined : pendingRefresh.get(agentId);
    if (agentId !== undefined && pending) {
      pendingRefresh.delete(agentId);
      await budget.wait(agentId, 'prompt.build', pending, T.promptInTurn);
    }
    // Shapes checked, not assumed: a later harness may change the assembly.
    if (!Array.isArray(result.sections) || !Array.isArray(result.tools)) return result;
    for (const section of result.sections) {
      const def = SECTIONS.find((x) => x.name === section.name);
      if (def) section.text = sections.prompt.text(def.key);
    }
    if (generation !== tools.generation() && context.agent && !isSubagent(context.agent.session.header)) {
      // Only tools that appeared during the wait: a scope that filtered them out on purpose had them
      // registered before it assembled, so it is left alone.
      const have = new Set(result.tools.map((t) => t.name));
      const added = tools.ownSchemas.filter((t) => !have.has(t.name)).map((t) => ({ ...t, parameters: structuredClone(t.parameters) }));
      if (added.length > 0) {
        base.log.debug('adding %d memory tools registered during the first assembly', added.length);
        result.tools = [...result.tools, ...added]; // appended: a configured toolOrder keeps its order
      }
    }
    return result;
  });
}

/**
 * Startup: not awaited by apply (a broken sidecar must not hold up boot); the first assembly waits
 * for it. Each later (re)start re-reads the embedder, the tools and the prompt.
 */
function startSidecar(base: Base, sidecar: Sidecar, embed: EmbedWatch, tools: MemoryTools, refreshPrompt: () => Promise<void>): Promise<void> {
  sidecar.onReady((info) => {
    base.downReason = '';
    embed.onReady(info);
    void tools.register();
    void refreshPrompt();
  });
  if (base.offReason) {
    tools.registerUnavailable();
    return Promise.resolve();
  }
  return sidecar.start().then(
    async () => {
      await tools.register();
      await refreshPrompt();
    },
    (err: Error) => base.log.error('somni sidecar failed to start (%s); memory is off until it restarts', err.message),
  );
}

/** The breaker over the calls a turn waits on; a sidecar it finds hung is restarted and the user told once. */
function hotPath(base: Base, sidecar: Sidecar, call: Call): HotPath {
  return new HotPath({
    call,
    isUp: () => sidecar.isUp,
    ping: (timeoutMs) => sidecar.ping(timeoutMs),
    restart: (why) => sidecar.restart(why),
    onHung: (why) =>
      base.report({
        key: 'sidecar-hung',
        severity: 'degraded',
        message: `the somni sidecar stopped answering: ${why}. Turns no longer wait for it and it is being restarted; until it is back there are no memory hints, the prompt sections keep their last text, and the conversation is queued for the memory log, not lost.`,
        summary: 'memory paused: the somni sidecar stopped answering and is being restarted',
      }),
    log: base.log,
    probeMs: T.probe,
  });
}

/** How a turn's hooks reach the sidecar (see {@link turnCalls}). */
interface TurnCalls {
  /** Each turn's allowance for all its waits on the sidecar. */
  readonly budget: TurnBudget;
  /** Hints: through the breaker, within the turn's allowance, never waiting for a start. */
  readonly hint: CallOf<'assoc.thought' | 'assoc.action'>;
  /** Capture ops: through the breaker, never waiting for a start. */
  readonly capture: Call;
}

/**
 * The calls a turn waits on, and the allowance they share: begun when the turn starts, its account
 * logged when it ends (info when the turn went without some memory, debug otherwise); a turn that went
 * without tells the breaker.
 */
function turnCalls(ctx: Context, base: Base, sidecar: Sidecar, hot: HotPath): TurnCalls {
  const budget = new TurnBudget(T.turn, T.turnFloor);
  // Hints and capture do not wait for a start (the prompt refresh may: it only reads). A hint sent once
  // the start ends would count as shown in the sidecar's habituation though nobody saw it, and a capture
  // op sent then would follow the copy the ready flush sends: written twice, out of order.
  const served: Call = (method, params, timeoutMs, signal) =>
    sidecar.status === 'starting' ? Promise.reject(new SidecarUnavailable(`somni sidecar is starting; ${method} not served`)) : hot.call(method, params, timeoutMs, signal);
  ctx.on('session/event', (session: Session, event) => {
    if (event.type === 'turn/start') budget.begin(session.id, event.data.turn);
    if (event.type !== 'turn/end') return;
    const account = budget.end(session.id);
    if (account?.short) {
      base.log.info('%s', account.line);
      hot.onTurnShort();
    } else if (account) base.log.debug('%s', account.line);
  });
  ctx.on('session/disposed', (session: Session) => budget.forget(session.id));
  return {
    budget,
    hint: (method, params, timeoutMs, signal) => budget.call(params.sessionId, method, timeoutMs, (ms) => served(method, params, ms, signal)),
    capture: served,
  };
}

/**
 * Plugin entry: composes the phases above. Nothing here waits on the sidecar.
 * @param ctx - the plugin's cordis context.
 * @param rawConfig - the row's config (already validated by {@link Config}; validated again here).
 */
export function apply(ctx: Context, rawConfig: unknown): void {
  const base = openBase(ctx, rawConfig);
  const { config, dataDir, log } = base;
  const found = checkInstall(base);
  const sidecar = new Sidecar({
    spawn: (spec) => ctx.subprocess.spawn(spec),
    argv: sidecarArgv(found.binary, config, dataDir, found.install),
    env: sidecarEnv(config),
    cwd: dataDir,
    log,
    sidecarLog: base.sidecarLog,
    handlers: hostHandlers(ctx, config),
    startTimeoutMs: T.start,
    onStderrLine: (line) => base.logFile.writeStderr(line),
    disabled: base.offReason || undefined,
  });
  const call: Call = (method, params, timeoutMs, signal) => sidecar.call(method, params, { timeoutMs, signal });
  // What a turn waits on goes through the breaker, and within the turn's allowance: a hung sidecar
  // costs a turn about a second, and once the breaker is open nothing.
  const hot = hotPath(base, sidecar, call);
  const turn = turnCalls(ctx, base, sidecar, hot);
  const embed = watchEmbedder(base, found.provisional, sidecar);

  const capture = new Capture(
    // Ops that miss or are skipped stay queued in order and are sent once the sidecar answers again.
    (method, params) => (method === 'session.close' ? call(method, params, T.background) : turn.capture(method, params, T.capture)),
    // Unset: the sidecar caps what its log keeps; the plugin only bounds what crosses the pipe.
    config.capture.maxMessageChars ?? CAPTURE_MAX_CHARS,
    (id) => base.ownMessageIds.has(id),
    base.quiet('capture'),
    // dream_now's result is the dreamer's own output: logging it would feed a dream into the next one.
    (toolName) => toolName === DREAM_NOW,
  );
  const sections = promptSections(ctx, base, hot.call);
  const refreshPrompt = (): Promise<void> => sections.refresh();
  const scheduler = new DreamScheduler({
    call,
    isUp: () => sidecar.isUp,
    // Without a listing the harness's agents cannot be known idle, so no automatic dream (dream_now still works).
    allIdle: () => typeof ctx.agents?.list === 'function' && ctx.agents.list().every((a: Agent) => a.status === 'idle'),
    flushCapture: () => capture.flushAll(),
    afterDream: () => void refreshPrompt(),
    idleMs: config.dream.idleMs,
    maxIntervalMs: config.dream.maxIntervalMs,
    minPendingLogs: config.dream.minPendingLogs,
    log,
  });
  const assoc = new Associator({
    call: turn.hint,
    ownTools: () => base.ownTools,
    ownMessageIds: base.ownMessageIds,
    preStep: config.assoc.enabled && config.assoc.preStep,
    postExecute: config.assoc.enabled && config.assoc.postExecute,
    timeoutMs: T.assoc,
    onError: base.quiet('assoc'),
  });
  const compaction = new CompactionMemory({
    call,
    agentOf: (sessionId) => (typeof ctx.agents?.get === 'function' ? ctx.agents.get(sessionId) : undefined),
    flush: (sessionId) => (config.capture.enabled ? capture.flush(sessionId) : Promise.resolve()),
    digestMs: T.digest,
    backgroundMs: T.background,
    nap: config.dream.napOnCompaction ? (sessionId) => scheduler.nap(sessionId, () => capture.flush(sessionId)) : undefined,
    log,
  });
  const tools = memoryTools(ctx, base, call, sidecar, scheduler, refreshPrompt);
  // Trouble comes only from a start, which startSidecar begins below: the reporter, which registers the
  // stand-in tools, listens from before it.
  sidecar.onTrouble(troubleReporter(base, found.binary, tools.registerUnavailable));
  // Before anything can assemble a prompt: the first model request must already offer them.
  tools.registerShipped();
  // Before startSidecar's listener, whose prompt refresh must find the breaker closed again.
  sidecar.onReady(() => {
    hot.onReady();
    // What capture could not send while the sidecar was hung or restarting goes now.
    void capture.flushAll();
  });
  const startup = startSidecar(base, sidecar, embed, tools, refreshPrompt);

  sessionHooks(ctx, base, call, capture, scheduler, sections, turn.budget);
  promptHooks(ctx, base, startup, turn.budget, sections, embed, tools);
  // Hints and notices: each hook calls next() first and only decorates its result.
  ctx.on('agent/pre-step', (payload, next) => assoc.preStep(payload, next));
  // A one-shot run flushes its session before it exits, while the sidecar still answers (the host may
  // stop it before this plugin unloads): the last chance to confirm a fallback for the terminal. The
  // flushes within a turn (before each model request) are not that one, and must not wait on pings.
  ctx.on('session/flush', async (session: Session) => {
    if (isSubagent(session.header) || base.terminal.hasUi() || turn.budget.inTurn(session.id)) return;
    await embed.settle();
    base.terminal.flush();
  });
  // The notice is decided first; on a host without a UI the same problems also get their stderr line.
  ctx.on('agent/pre-step', async (payload, next) => {
    const decision = await base.notices.preStep(payload, next);
    base.terminal.flush();
    return decision;
  });
  ctx.on('tools/post-execute', (exec, result, next) => assoc.postExecute(exec, result, next));
  // Compaction: the summary call gets the memory digest; afterwards habituation resets (and maybe a nap).
  ctx.on('llm/stream', function (options, next) {
    return compaction.stream(options, next);
  });
  ctx.on('session/event', (session: Session, event) => compaction.onSessionEvent(session, event));
  // A one-shot run flushes before it exits: a nap in progress gets to finish (bounded). With a UI the
  // host stays up, so nothing waits: `/compact` itself flushes and would otherwise hold the user. Nor
  // does a flush within a turn (the harness flushes before every model request).
  ctx.on('session/flush', (session: Session) => (base.terminal.hasUi() || turn.budget.inTurn(session.id) ? undefined : compaction.settle(T.napSettle)));

  if (config.dream.enabled) scheduler.startTimer(config.dream.tickMs);
  base.terminal.watch();
  // The web Memory tab's host half; it injects nothing, so headless boots the same.
  void registerMemoryApi(ctx, {
    call,
    runDream: (trigger) => scheduler.runNow(trigger),
    dreamRunning: () => scheduler.busy,
    // Only a session the host holds live: the tab must not resume a cold one just to number its turns.
    turns: (sessionId) => {
      const agent = typeof ctx.agents?.get === 'function' ? ctx.agents.get(sessionId as Parameters<typeof ctx.agents.get>[0]) : undefined;
      return agent ? turnMarks(agent.session.events) : [];
    },
    carried: (sessionId) => compaction.carried(sessionId),
    log,
  });

  ctx.effect(() => async () => {
    scheduler.stopTimer();
    // A nap after a compaction may still be dreaming: a one-shot run must not cut it off (bounded).
    await compaction.settle(T.napSettle);
    // A one-shot run ends here: a problem confirmed during the turn still reaches the terminal.
    await embed.settle();
    embed.stop();
    base.terminal.flush();
    base.terminal.stop();
    // A restart the breaker asked for may still be under way: the queued capture waits for it (bounded).
    await hot.settled(T.start, () => !['failed', 'stopping', 'stopped'].includes(sidecar.status));
    await withTimeout(capture.flushAll(), T.background);
    await sidecar.stop();
    base.logFile.close();
  }, 'dsh-somni sidecar');
}
