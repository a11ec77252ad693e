// What the install test and the browser test share to meet the packages as a user gets them: a
// throwaway verdaccio (no uplinks, so nothing but what a test publishes resolves), a publisher with a
// token, a fresh user's environment, and running a command. Runtime imports: Node built-ins only.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The end of a long output, for an error message. @param {string} s */
export const tail = (s, n = 1500) => (s.length > n ? `…${s.slice(-n)}` : s);

/** Runs a command; resolves {code, stdout, stderr, ms}. Never rejects. */
export function runCommand(cmd, args, o = {}) {
  return new Promise((done) => {
    const t0 = Date.now();
    const child = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 300_000);
    child.on('error', (err) => (stderr += String(err)));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code: code ?? (signal ? 128 : 1), stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => done(port));
    });
  });
}

/**
 * The environment of a user on a fresh machine: PATH (node, pnpm, dsh), a temp HOME and DSH_HOME, the
 * registry, the fake model's key.
 */
export function userEnv(home, dshHome, registryUrl, extra = {}) {
  const env = {};
  for (const k of ['PATH', 'LANG', 'LC_ALL', 'TZ', 'NODE_EXTRA_CA_CERTS']) if (process.env[k]) env[k] = process.env[k];
  return { ...env, HOME: home, DSH_HOME: dshHome, DSH_TELEMETRY_DISABLED: '1', npm_config_registry: registryUrl, npm_config_update_notifier: 'false', FAKE_LLM_KEY: 'fake', ...extra };
}

/**
 * Starts verdaccio in `dir` on a free loopback port (killed when the process exits) and signs up one
 * publisher. Throws with the registry's output when it does not come up.
 * @param {string} verdaccio - the executable
 * @param {string} dir - its folder (config, storage, htpasswd, its HOME, the publisher's HOME)
 * @returns {Promise<{url: string, storage: string, publisherHome: string, log: () => string, stop: () => void}>}
 */
export async function startRegistry(verdaccio, dir) {
  const sub = (name) => {
    const d = join(dir, name);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const storage = sub('storage');
  writeFileSync(join(dir, 'config.yaml'), `# Throwaway registry of a test: no uplinks, so nothing but what the test publishes resolves.
storage: ${JSON.stringify(storage)}
auth:
  htpasswd:
    file: ${JSON.stringify(join(dir, 'htpasswd'))}
    max_users: 1
uplinks: {}
packages:
  '**':
    access: $all
    publish: $authenticated
max_body_size: 200mb
log: {type: stdout, format: pretty, level: warn}
`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  let log = '';
  const child = spawn(verdaccio, ['--config', join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: sub('home') } });
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const stop = () => child.kill();
  process.on('exit', stop); // never leave the registry behind, even on a crash
  let up = false;
  for (let i = 0; i < 200 && !up; i++) {
    up = (await fetch(`${url}-/ping`).catch(() => null))?.ok ?? false;
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  if (!up) throw new Error(`registry did not answer on ${url}: ${tail(log)}`);
  const res = await fetch(`${url}-/user/org.couchdb.user:somni`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'somni', password: 'somni-test-publisher' }) });
  const body = await res.json();
  if (!res.ok || !body.token) throw new Error(`registry user creation: ${res.status} ${JSON.stringify(body)}`);
  const publisherHome = sub('publisher-home');
  writeFileSync(join(publisherHome, '.npmrc'), `//127.0.0.1:${port}/:_authToken=${body.token}\n`);
  return { url, storage, publisherHome, log: () => log, stop };
}
