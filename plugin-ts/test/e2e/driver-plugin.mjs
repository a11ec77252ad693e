// A test-only cordis plugin that turns the headless profile into a long-lived host, the way the web
// or TUI app keeps the harness up between turns. It replaces `headless-runner` (disabled in the
// patch) and takes its orders from the e2e test over HTTP: `GET {controlUrl}/next` long-polls for a
// command, `POST {controlUrl}/done` reports its outcome.
//   {op: 'prompt', text, newSession?}  → one user turn (a new agent + session when asked or first)
//   {op: 'compact'}                   → compacts the current session the way `/compact` does
//                                       (the compaction engine's compactNow; headless has no command adapter)
//   {op: 'exit', code?}               → ends the app
// Every report carries the compaction events the op caused (`compactions`: summary text or error).
// Runtime imports are Node built-ins only (mounted by path, see plugin-ts/README.md).
import { randomUUID } from 'node:crypto';

export const name = 'somni-e2e-driver';
export const inject = ['agents', 'agentDefaultModel', 'sessions'];

/** Final assistant text, turn-end reason and compactions of the events after `firstSeq` (as headless prints). */
function outcome(events, firstSeq) {
  let text = '';
  let reason;
  const compactions = [];
  for (const e of events) {
    if (e.seq < firstSeq) continue;
    if (e.type === 'compaction/summary') compactions.push({ summary: e.data.summary.map((b) => b.text ?? '').join('\n') });
    if (e.type === 'compaction/end' && e.data.error) compactions.push({ error: e.data.error });
    if (e.type === 'assistant/message') {
      const t = e.data.message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
      if (t) text = t;
    }
    if (e.type === 'turn/end') reason = e.data.reason?.kind;
  }
  return { text, reason, compactions };
}

export function apply(ctx, config) {
  const exit = ctx.get('appExit');
  const url = config.controlUrl;
  const post = (body) => fetch(`${url}/done`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  let agent;

  async function prompt(cmd) {
    if (!agent || cmd.newSession) {
      const sel = ctx.agentDefaultModel.currentSelection();
      ({ agent } = await ctx.agents.create({
        sessionId: `session-${randomUUID()}`,
        meta: { cwd: process.cwd() },
        agentOptions: { provider: sel.provider, model: sel.model },
      }));
      await agent.whenIdle();
    }
    const firstSeq = agent.session.seq;
    const t0 = Date.now();
    agent.followup({ id: randomUUID(), role: 'user', content: [{ type: 'text', text: cmd.text }], source: { kind: 'user' } });
    await agent.whenIdle();
    await ctx.sessions.flush(agent.session);
    return { ...outcome(agent.session.events, firstSeq), sessionId: agent.session.id, ms: Date.now() - t0 };
  }

  // Headless mounts the compaction engine on the host root (dsh-base row compaction-basic). It is
  // looked up when asked for rather than injected: cordis 4.0.1 has no optional inject, and a required
  // one would keep the driver from starting on a host without the engine.
  async function compact() {
    const engine = ctx.get('compaction');
    if (!engine) return { error: 'no compaction service on this host' };
    if (!agent) return { error: 'no session to compact' };
    const firstSeq = agent.session.seq;
    const result = await engine.compactNow(agent, AbortSignal.timeout(120_000));
    return { ...outcome(agent.session.events, firstSeq), sessionId: agent.session.id, shadowed: result?.shadowedSeqs.length ?? 0 };
  }

  async function run() {
    await ctx.get('loader')?.await();
    for (;;) {
      const cmd = await (await fetch(`${url}/next`)).json();
      if (cmd.op === 'exit') {
        await post({ seq: cmd.seq });
        exit(cmd.code ?? 0);
        return;
      }
      let report;
      try {
        report = cmd.op === 'prompt' ? await prompt(cmd) : cmd.op === 'compact' ? await compact() : { error: `unknown op ${cmd.op}` };
      } catch (err) {
        report = { error: err instanceof Error ? err.stack : String(err) };
      }
      await post({ seq: cmd.seq, ...report });
    }
  }
  run().catch((err) => {
    process.stderr.write(`somni-e2e-driver: ${err instanceof Error ? err.stack : err}\n`);
    exit(1);
  });
}
