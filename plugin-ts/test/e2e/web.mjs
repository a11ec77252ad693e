// The web profile as its browser client drives it, without a browser: `dsh --profile web` on a free
// loopback port, and the same `/api` requests the web client sends (rc.8: the session RPCs
// `session.create` / `session.prompt` / `session.history`, and slash commands through the Typert remote
// `commands/execute`, which is how the composer runs `/compact`). Runtime imports: Node built-ins only.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';

/**
 * Boots `dsh --profile web --patch P --host 127.0.0.1 --port 0 --no-open` and resolves once it prints
 * its address. `stop()` ends it (SIGTERM, then SIGKILL after 10 s) and resolves with its exit.
 * @param {{home: string, patch: string, cwd: string, env?: object, bootMs?: number}} o
 */
export async function startDshWeb(o) {
  const env = { ...process.env, DSH_HOME: o.home, DSH_TELEMETRY_DISABLED: '1', FAKE_LLM_KEY: 'fake', ...o.env };
  const child = spawn('dsh', ['--profile', 'web', '--patch', o.patch, '--host', '127.0.0.1', '--port', '0', '--no-open'], { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dsh web did not print its address in ${o.bootMs ?? 60_000} ms: ${stderr.slice(-2000)}`)), o.bootMs ?? 60_000);
    const look = () => {
      const m = /dsh web: (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', look);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`dsh web exited before serving: ${stderr.slice(-2000)}`));
    });
  });
  /**
   * One `/api` request as the web client sends it; resolves with the result's value, throws on
   * `{ok: false}` with the error's code and message.
   * @param {string} method - `session.create`, `commands/execute`, …
   * @param {object} payload
   */
  async function rpc(method, payload) {
    const res = await fetch(`${base}/api/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'client-request', rpcId: randomUUID(), method, payload }),
    });
    const body = await res.json();
    const result = body.result ?? body;
    if (!result.ok) throw new Error(`${method}: ${JSON.stringify(result.error ?? body).slice(0, 600)}`);
    return result.value;
  }
  /** The session's events (`session.history`), oldest first. @param {string} sessionId */
  async function events(sessionId) {
    const v = await rpc('session.history', { sessionId });
    return v.events.map((/** @type {{event: any}} */ e) => e.event);
  }
  /** Resolves once the session has logged `n` ended turns (a prompt's turn runs after `session.prompt` answers). */
  async function turnsEnded(sessionId, n, ms = 60_000) {
    const t0 = Date.now();
    for (;;) {
      const evs = await events(sessionId);
      if (evs.filter((e) => e.type === 'turn/end').length >= n) return evs;
      if (Date.now() - t0 > ms) throw new Error(`timed out waiting for turn ${n} to end: ${evs.map((e) => e.type).join(',')}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  return {
    base,
    rpc,
    events,
    turnsEnded,
    /** Sends one user prompt to a session. @param {string} sessionId @param {string} text */
    prompt: (sessionId, text) => rpc('session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text }] }),
    /** Runs a slash command line the way the composer does. @param {string} sessionId @param {string} line */
    command: (sessionId, line) => rpc('commands/execute', { args: { agentId: sessionId, line, images: [] } }),
    output: () => ({ stdout, stderr }),
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const r = await exited;
      clearTimeout(timer);
      return r;
    },
  };
}
