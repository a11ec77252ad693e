// Shared test helpers: a child_process-backed stand-in for ctx.subprocess.spawn and a recording logger.
import { spawn as nodeSpawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const FAKE_SIDECAR = fileURLToPath(new URL('../fixtures/fake-sidecar.mjs', import.meta.url));

/** Spawns like the harness's subprocess service: scrubbed env plus explicit entries; tree-free terminate. */
export function localSpawn(extraEnv = {}) {
  const specs = [];
  const spawn = (spec) => {
    specs.push(spec);
    const env = { ...process.env, ...extraEnv };
    for (const [k, v] of Object.entries(spec.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = nodeSpawn(spec.argv[0], spec.argv.slice(1), { cwd: spec.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const done = new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exitCode, signal) => resolve({ exitCode, signal }));
    });
    done.catch(() => {});
    return {
      pid: child.pid ?? -1,
      stdin: child.stdin,
      stdout: child.stdout,
      stderr: child.stderr,
      collected: {},
      done,
      terminate() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), spec.graceMs).unref();
        }
      },
      async waitForExit() {
        await done.catch(() => {});
        return true;
      },
    };
  };
  return { spawn, specs };
}

/** A logger that records `level: message` lines. */
export function recordingLog() {
  const lines = [];
  const fmt = (f, args) => {
    let i = 0;
    return String(f).replace(/%[sdo]/g, () => String(args[i++]));
  };
  const mk = (level) => (f, ...args) => lines.push(`${level}: ${fmt(f, args)}`);
  return { lines, debug: mk('debug'), info: mk('info'), warn: mk('warn'), error: mk('error') };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns truthy or `ms` elapse. */
export async function waitFor(fn, ms = 5000, what = 'condition') {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
