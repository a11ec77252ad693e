#!/usr/bin/env node
// End-to-end: memory on two machines through git, the automatic rounds driven by the real harness.
// "Machines" are two data dirs sharing one bare remote; the laptop's is the harness's, whose plugin
// config sets sync.interval (the sidecar's --sync-interval), the desktop's is driven by hand with the
// bare CLI a user runs. A note the desktop sends reaches the laptop's running sidecar by its own rounds
// (no restart, no sync typed on the laptop) and the model's recall_memories finds it; an intention the
// laptop's model adds reaches the desktop with its next `sync`. Then the remote goes away: the next
// turn is told once, as a plugin notice, that the automatic sync failed, and recall still answers.
// Usage: node test/e2e/sync.mjs   (env SOMNI_SIDECAR_BIN overrides the binary; E2E_KEEP=1 keeps the temp dir)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, textsOf } from './fake-model.mjs';
import { checkRunner, expect, finishRun, lastToolResult, listFiles, runDsh, sidecarBinary, sleep, waitFor, writePatch } from './harness.mjs';

const binary = sidecarBinary();
const root = mkdtempSync(join(tmpdir(), 'somni-e2e-sync-'));
const laptop = join(root, 'laptop');
const desktop = join(root, 'desktop');
const remote = join(root, 'memory.git');
const work = join(root, 'workspace');
mkdirSync(work, { recursive: true });
const { results, check } = checkRunner();

/** The bare CLI on a data dir, as a user types it: `somni-sidecar --data-dir D sync …`. */
function cli(dataDir, ...args) {
  const r = spawnSync(binary, ['--data-dir', dataDir, 'sync', ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
/** A knowledge entry written by hand, as a person adds one. */
function note(dataDir, name, body) {
  const d = join(dataDir, 'memory', 'knowledge', name);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, 'SKILL.md'), `---\nname: ${name}\ndescription: ${body.split('.')[0]}\ntype: fact\n---\n\n${body}\n`);
}

await check('both machines join one remote with the bare CLI (sync init)', async () => {
  const g = spawnSync('git', ['init', '-q', '--bare', '-b', 'main', remote], { encoding: 'utf8' });
  expect(g.status === 0, `git init --bare: ${g.stderr}`);
  note(desktop, 'printer', 'The 3rd floor printer is prn-3f, duplex by default.');
  note(laptop, 'coffee', 'The user takes coffee with oat milk, no sugar.');
  for (const d of [desktop, laptop]) {
    const r = cli(d, 'init', remote);
    expect(r.code === 0, `sync init on ${d}: exit ${r.code}: ${r.out}`);
  }
  expect(existsSync(join(laptop, 'memory/knowledge/printer/SKILL.md')), `the laptop did not receive the desktop's note: ${listFiles(join(laptop, 'memory/knowledge')).join(', ')}`);
});

let agentTurn = () => ({ content: 'ok' });
const model = await startFakeModel((req) => agentTurn(req));
const patch = join(root, 'patch.yml');
writePatch(patch, {
  modelUrl: model.url,
  controlUrl: model.controlUrl,
  pluginConfig: { binary, dataDir: laptop, embed: { provider: 'hash' }, dream: { enabled: false }, logLevel: 'debug', sync: { interval: '1s' } },
});
/** One user turn (in a new session unless `same`); `script` answers this turn's agent requests in order. */
async function turn(text, script, same = false) {
  const reqs = [];
  agentTurn = async (req) => {
    reqs.push(req);
    const step = script[reqs.length - 1];
    return step ? await step(req) : { content: 'done' };
  };
  const r = await model.drive({ op: 'prompt', text, newSession: !same });
  return { ...r, reqs };
}
const recall = (query) => [() => ({ toolCalls: [{ name: 'recall_memories', arguments: { query } }] }), () => ({ content: 'Done.' })];
const notices = (req) => textsOf(req, 'user').filter((t) => t.includes('Long-term memory notice'));

console.log(`e2e sync: harness dsh, sidecar ${binary}\n      temp ${root}`);
const host = runDsh({ home: join(root, 'home'), patch, prompt: 'e2e sync host', cwd: work, timeoutMs: 240_000 });

await check('a note sent from the desktop is recalled on the laptop after the running sidecar\'s own round', async () => {
  // The host's first turn starts the sidecar.
  const first = await turn('Where is the printer?', recall('3rd floor printer'));
  expect(first.reason === 'completed' && lastToolResult(first.reqs[1]).includes('prn-3f'), `first recall: ${lastToolResult(first.reqs[1] ?? { messages: [] }).slice(0, 400)}`);
  note(desktop, 'vpn-gateway', 'The office VPN gateway is vpn-gw-3.corp on UDP 51820.');
  const r = cli(desktop);
  expect(r.code === 0, `sync on the desktop: exit ${r.code}: ${r.out}`);
  const t0 = Date.now();
  await waitFor('the vpn-gateway note on the laptop', () => existsSync(join(laptop, 'memory/knowledge/vpn-gateway/SKILL.md')), 30_000);
  const arrived = Date.now() - t0;
  const found = await waitFor('recall of the new note', async () => {
    const t = await turn('What is the VPN gateway?', recall('office VPN gateway'));
    const out = lastToolResult(t.reqs[1] ?? { messages: [] });
    return out.includes('vpn-gw-3.corp') ? out : (await sleep(500), undefined);
  }, 20_000);
  console.log(`  the note arrived ${arrived} ms after the desktop's sync; recall: ${found.split('\n').find((l) => l.includes('vpn')) ?? ''}`);
});

await check('an intention the laptop\'s model adds reaches the desktop with its next sync', async () => {
  const t = await turn('Remind me to renew the TLS certificate of api.example.com.', [
    () => ({ toolCalls: [{ name: 'add_intention', arguments: { what: 'Renew the TLS certificate of api.example.com', cue: 'TLS certificate', priority: 'high' } }] }),
    () => ({ content: 'I will remind you.' }),
  ]);
  expect(t.reason === 'completed', `turn: ${JSON.stringify(t).slice(0, 400)}`);
  const intent = await waitFor('the intention on the desktop', () => {
    const r = cli(desktop);
    const files = listFiles(join(desktop, 'memory/intentions')).filter((f) => f.endsWith('INTENT.md'));
    const hit = files.map((f) => readFileSync(join(desktop, 'memory/intentions', f), 'utf8')).find((x) => x.includes('Renew the TLS certificate'));
    return r.code === 0 && hit;
  }, 30_000);
  expect(!intent.includes('<<<<<<<'), `conflict markers in the intention:\n${intent}`);
});

await check('the remote gone: the next turn is told once that the automatic sync failed, and recall still answers', async () => {
  renameSync(remote, `${remote}.moved`);
  // Rounds run every second; ping is asked again on a user's turn once 30 s passed since the last check.
  await sleep(31_000);
  const t = await turn('Where is the printer again?', recall('3rd floor printer'));
  const told = notices(t.reqs[0]);
  expect(told.length === 1 && /automatic git sync of memory failed: cannot reach/.test(told[0]), `the notices the turn carried: ${JSON.stringify(told).slice(0, 600)}`);
  expect(lastToolResult(t.reqs[1] ?? { messages: [] }).includes('prn-3f'), 'recall did not answer with the remote gone');
  // The same session's next turn carries the notice once, in its history, not a second time.
  const again = await turn('And the printer once more?', recall('3rd floor printer'), true);
  expect(notices(again.reqs[0]).length === 1, `the session's next turn carries ${notices(again.reqs[0]).length} notices`);
});

await check('host exits cleanly', async () => {
  await Promise.race([model.drive({ op: 'exit' }), sleep(10_000)]);
  const h = await host;
  expect(h.code === 0, `host exit ${h.code}: ${h.stderr.slice(-2000)}`);
});

await model.close();
finishRun(results, root);
