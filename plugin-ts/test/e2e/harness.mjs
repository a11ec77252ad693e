// Helpers shared by the e2e tests, the install test and the demo: a check runner, run one headless
// DSH turn with the plugin mounted, find the sidecar's process, and list memory files.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PLUGIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const REPO_DIR = resolve(PLUGIN_DIR, '..');
export const PLUGIN_ENTRY = join(PLUGIN_DIR, 'lib/index.js');
export const DRIVER_ENTRY = join(PLUGIN_DIR, 'test/e2e/driver-plugin.mjs');

/**
 * The checks of one test file: every check runs, a failure is reported and the run continues, and
 * `results` holds them all for the closing "N passed, N failed" line.
 */
export function checkRunner() {
  /** @type {{name: string, ok: boolean, ms: number, err?: unknown}[]} */
  const results = [];
  /** @param {string} name @param {() => unknown} fn */
  async function check(name, fn) {
    const t0 = Date.now();
    try {
      await fn();
      results.push({ name, ok: true, ms: Date.now() - t0 });
      console.log(`  ok   ${name} (${Date.now() - t0} ms)`);
    } catch (err) {
      results.push({ name, ok: false, ms: Date.now() - t0, err });
      console.log(`  FAIL ${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { results, check };
}

/** Fails the running check with msg unless cond holds. @param {unknown} cond @param {string} msg */
export function expect(cond, msg) {
  if (!cond) throw new Error(msg);
}

/**
 * Polls fn every 100 ms until it returns something truthy, and returns that; throws after ms.
 * @template T
 * @param {string} what - named in the time-out error
 * @param {() => T | Promise<T>} fn
 */
export async function waitFor(what, fn, ms = 30_000) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * Scripted user turns over the e2e driver. `answer` is the fake model's handler for the agent's
 * requests; `turn(model, text, script, newSession)` sends one user prompt and answers that turn's
 * agent requests with `script`'s steps in order ('done' after the last), returning the driver's
 * reply with the requests the turn made.
 */
export function scriptedTurns() {
  /** @type {(req: any) => any} */
  let current = () => ({ content: 'ok' });
  return {
    /** @param {any} req */
    answer: (req) => current(req),
    /**
     * @param {{drive: (op: object) => Promise<object>}} model
     * @param {string} text
     * @param {((req: any) => any)[]} script
     */
    async turn(model, text, script, newSession = false) {
      /** @type {any[]} */
      const reqs = [];
      current = async (req) => {
        reqs.push(req);
        const step = script[reqs.length - 1];
        return step ? await step(req) : { content: 'done' };
      };
      const r = await model.drive({ op: 'prompt', text, newSession });
      return { ...r, reqs };
    },
  };
}

/**
 * The sidecar binary the e2e tests run: SOMNI_SIDECAR_BIN, else the repo's bin/somni-sidecar; the
 * process exits with status 2 and says to `make build` when it is missing.
 */
export function sidecarBinary() {
  const binary = process.env.SOMNI_SIDECAR_BIN || join(REPO_DIR, 'bin/somni-sidecar');
  if (!existsSync(binary)) {
    console.error(`e2e: sidecar binary ${binary} not found (run \`make build\` at the repo root)`);
    process.exit(2);
  }
  return binary;
}

/** YAML-safe scalar (JSON strings are valid YAML flow scalars). */
const y = (v) => JSON.stringify(v);

/**
 * The patch rows that point the harness at the fake model (`fake-model.mjs`) as its default model;
 * every test that boots the harness, mounted by path or installed, uses these.
 * @param {string} modelUrl
 * @param {boolean} [imageInput] - let the model take images (read_image refuses otherwise)
 */
export function fakeModelRows(modelUrl, imageInput = false) {
  return `- id: llm-deepseek
  config:
    baseURL: ${y(modelUrl)}
    apiKeyEnv: FAKE_LLM_KEY
    thinking: disabled
    models: [{id: fake-model, contextWindow: 128000, maxTokens: 4096${imageInput ? ', inputModalities: [text, image]' : ''}}]
- id: agent-default-model
  config: {provider: deepseek-official, model: fake-model}
`;
}

/**
 * Writes a cordis patch pointing the harness at a model and mounting the plugin by absolute path.
 * @param {string} file - where to write it.
 * With `controlUrl`, the one-shot headless runner is replaced by the long-lived e2e driver plugin.
 * `extraRows` are appended as they are (YAML rows of the same list); `imageInput` lets the fake model
 * take images (read_image refuses otherwise).
 * @param {{modelUrl?: string, pluginConfig: object, realModel?: boolean, controlUrl?: string, extraRows?: string, imageInput?: boolean}} o
 */
export function writePatch(file, o) {
  const rows = [];
  if (!o.realModel) {
    rows.push(fakeModelRows(o.modelUrl, o.imageInput).trimEnd());
  }
  rows.push(`- id: session-title-llm
  disabled: true
- insert:
    - id: dsh-somni
      name: ${y(PLUGIN_ENTRY)}
      config: ${JSON.stringify(o.pluginConfig)}`);
  if (o.controlUrl) {
    rows.push(`- id: headless-runner
  disabled: true
- insert:
    - id: somni-e2e-driver
      name: ${y(DRIVER_ENTRY)}
      config: {controlUrl: ${y(o.controlUrl)}}`);
  }
  if (o.extraRows) rows.push(o.extraRows.trimEnd());
  writeFileSync(file, rows.join('\n') + '\n');
}

/**
 * Runs `dsh --profile headless --patch P prompt` and resolves with its exit code and output.
 * @param {{home: string, patch: string, prompt: string, cwd: string, env?: object, timeoutMs?: number}} o
 */
export function runDsh(o) {
  return new Promise((resolvePromise) => {
    const env = { ...process.env, DSH_HOME: o.home, DSH_TELEMETRY_DISABLED: '1', FAKE_LLM_KEY: 'fake', ...o.env };
    const child = spawn('dsh', ['--profile', 'headless', '--patch', o.patch, o.prompt], { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const t0 = Date.now();
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 180_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout: stdout.trim(), stderr, ms: Date.now() - t0 });
    });
  });
}

/** Pids of somni-sidecar processes started for `dataDir` (matched exactly in /proc/<pid>/cmdline). */
export function sidecarPids(dataDir) {
  const pids = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let argv;
    try {
      argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const i = argv.indexOf('--data-dir');
    if (i >= 0 && argv[i + 1] === dataDir && argv.some((a) => a.endsWith('sidecar'))) pids.push(Number(name));
  }
  return pids;
}

/** Every file under `dir`, relative, sorted. */
export function listFiles(dir) {
  const out = [];
  const walk = (d, rel) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      const r = rel ? `${rel}/${e}` : e;
      if (statSync(p).isDirectory()) walk(p, r);
      else out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}

/** Reads every file under `dir` whose relative path matches `re`, concatenated. */
export function readMatching(dir, re) {
  return listFiles(dir)
    .filter((f) => re.test(f))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** All message texts of a chat request, role-tagged, for searching. */
export function allText(req) {
  return (req.messages ?? [])
    .map((m) => `[${m.role}] ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)} ${m.tool_calls ? JSON.stringify(m.tool_calls) : ''}`)
    .join('\n');
}

/** The last tool-role message's text in a request. */
export function lastToolResult(req) {
  const t = (req.messages ?? []).filter((m) => m.role === 'tool');
  const m = t[t.length - 1];
  return m ? (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)) : '';
}

/**
 * Ends a test file: removes its temp dir unless a check failed or `E2E_KEEP` is set (then says where it
 * is), prints the "<label>: N passed, N failed" line the test scripts count, and exits non-zero on a failure.
 * @param {{ok: boolean}[]} results @param {string} root @param {string} [label]
 */
export function finishRun(results, root, label = 'e2e') {
  const failed = results.filter((r) => !r.ok);
  if (process.env.E2E_KEEP || failed.length > 0) console.log(`      kept ${root}`);
  else rmSync(root, { recursive: true, force: true });
  console.log(`${label}: ${results.length - failed.length} passed, ${failed.length} failed`);
  process.exit(failed.length > 0 ? 1 : 0);
}
