#!/usr/bin/env node
// End-to-end: a team's memory in the project's own repository, two teammates, the real harness on each.
// A project repository (a bare origin, two clones: Alice's and Bob's) holds the team pool `.somni/`.
// Alice mounts it with the bare CLI (`somni-sidecar team add backend ./.somni`, recorded in her data
// dir, so her CLI approvals see it too); Bob's harness mounts it through the plugin's `teams` config (a
// relative folder: the project the harness runs in), as a project's own config would ship it. Alice's model proposes a share (share_memory), which writes nothing to the pool;
// Alice approves it with the bare CLI (`somni-sidecar share approve`), commits and pushes with her code.
// Bob pulls; in his next session the entry is hinted unasked and recalled on purpose, each naming its
// origin (team backend, shared by Alice), and his working tree stays clean through recalls and a dream.
// Usage: node test/e2e/team.mjs   (env SOMNI_SIDECAR_BIN overrides the binary; E2E_KEEP=1 keeps the temp dir)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, textsOf, toolNames } from './fake-model.mjs';
import { checkRunner, expect, finishRun, lastToolResult, listFiles, runDsh, scriptedTurns, sidecarBinary, sleep, writePatch } from './harness.mjs';

const binary = sidecarBinary();
const root = mkdtempSync(join(tmpdir(), 'somni-e2e-team-'));
const origin = join(root, 'proj.git');
const aliceProj = join(root, 'alice', 'proj');
const bobProj = join(root, 'bob', 'proj');
const aliceData = join(root, 'alice', 'somni');
const bobData = join(root, 'bob', 'somni');
const { results, check } = checkRunner();
const ENTRY = 'staging-postgres-port';
const entryFile = (proj) => join(proj, '.somni', 'knowledge', ENTRY, 'SKILL.md');

/** git in a folder, as a person types it; fails the check on a non-zero exit. */
function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  expect(r.status === 0, `git ${args.join(' ')} in ${cwd}: ${r.stderr}`);
  return r.stdout;
}
/** The bare CLI on a data dir, as a user types it. */
function cli(dataDir, cwd, ...args) {
  const r = spawnSync(binary, ['--data-dir', dataDir, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, stdout: r.stdout ?? '' };
}

/** One teammate's harness in their project, the team pool mounted as `./.somni`. */
async function teammate(name, proj, dataDir, teams) {
  const turns = scriptedTurns();
  // The dreamer's requests (they offer create_knowledge) end at once: this story is about the pool.
  const model = await startFakeModel((req) => (toolNames(req).includes('create_knowledge') ? { content: 'Nothing to keep.' } : turns.answer(req)));
  const patch = join(root, `${name}.patch.yml`);
  writePatch(patch, {
    modelUrl: model.url,
    controlUrl: model.controlUrl,
    pluginConfig: { binary, dataDir, embed: { provider: 'hash' }, dream: { enabled: false }, logLevel: 'debug', sync: { interval: 'off' }, teams },
  });
  const run = runDsh({ home: join(root, `${name}-home`), patch, prompt: `e2e team ${name}`, cwd: proj, timeoutMs: 240_000 });
  return {
    turn: (text, script) => turns.turn(model, text, script, true),
    async exit() {
      await Promise.race([model.drive({ op: 'exit' }), sleep(10_000)]);
      const h = await run;
      await model.close();
      return h;
    },
  };
}

console.log(`e2e team: harness dsh, sidecar ${binary}\n      temp ${root}`);

await check('a project with a team pool: an origin and two clones, Alice\'s and Bob\'s', async () => {
  git(root, 'init', '-q', '--bare', '-b', 'main', origin);
  for (const [proj, who] of [[aliceProj, 'Alice'], [bobProj, 'Bob']]) {
    mkdirSync(join(proj, '..'), { recursive: true });
    git(join(proj, '..'), 'clone', '-q', origin, proj);
    git(proj, 'config', 'user.name', who);
    git(proj, 'config', 'user.email', `${who.toLowerCase()}@example.invalid`);
  }
  mkdirSync(join(aliceProj, '.somni', 'knowledge'), { recursive: true });
  git(aliceProj, 'commit', '-q', '--allow-empty', '-m', 'start');
  git(aliceProj, 'push', '-q', 'origin', 'HEAD:main');
  git(bobProj, 'pull', '-q', 'origin', 'main');
  const r = cli(aliceData, aliceProj, 'team', 'add', 'backend', './.somni');
  expect(r.code === 0 && r.out.includes('mounted team backend'), `team add: exit ${r.code}: ${r.out}`);
});

let proposal = '';
await check('Alice\'s model proposes a share: it waits for her, and the pool is untouched', async () => {
  const alice = await teammate('alice', aliceProj, aliceData, {});
  const t = await alice.turn('Our staging Postgres moved to port 6543. Share that with the team.', [
    () => ({ toolCalls: [{ name: 'share_memory', arguments: { team: 'backend', name: ENTRY, entry_type: 'fact', description: 'the staging Postgres listens on port 6543', body: 'Our staging Postgres listens on port 6543, not 5432.' } }] }),
    () => ({ content: 'Proposed.' }),
  ]);
  proposal = lastToolResult(t.reqs[1] ?? { messages: [] });
  expect(t.reason === 'completed' && /approv/i.test(proposal), `share_memory answered: ${proposal.slice(0, 600)}`);
  expect(!existsSync(entryFile(aliceProj)), 'the proposal wrote into the pool');
  const h = await alice.exit();
  expect(h.code === 0, `alice's host exit ${h.code}: ${h.stderr.slice(-1500)}`);
});

await check('Alice approves with the bare CLI, commits and pushes the entry with her code', async () => {
  const list = cli(aliceData, aliceProj, 'share', 'list');
  expect(list.code === 0 && list.stdout.includes(ENTRY), `share list: exit ${list.code}: ${list.out}`);
  const id = list.stdout.split('\n').find((l) => l.includes(ENTRY))?.trim().split(/\s+/)[0] ?? '';
  const ok = cli(aliceData, aliceProj, 'share', 'approve', id);
  expect(ok.code === 0, `share approve ${id}: exit ${ok.code}: ${ok.out}`);
  const text = readFileSync(entryFile(aliceProj), 'utf8');
  expect(/shared_by: Alice/.test(text) && text.includes('6543'), `the shared entry:\n${text}`);
  const status = git(aliceProj, 'status', '--porcelain', '--untracked-files=all');
  expect(status.trim().split('\n').every((l) => l.includes('.somni/')), `approving left more than the pool's files:\n${status}`);
  git(aliceProj, 'add', '.somni');
  git(aliceProj, 'commit', '-q', '-m', 'team memory: staging Postgres port');
  git(aliceProj, 'push', '-q', 'origin', 'HEAD:main');
});

await check('Bob pulls; his next session hints the entry unasked and recalls it, naming its origin', async () => {
  git(bobProj, 'pull', '-q', 'origin', 'main');
  expect(existsSync(entryFile(bobProj)), `the pull did not bring the entry: ${listFiles(join(bobProj, '.somni')).join(', ')}`);
  const bob = await teammate('bob', bobProj, bobData, { backend: './.somni' });
  const t = await bob.turn('psql to the staging Postgres on port 5432 fails with connection refused.', [
    () => ({ toolCalls: [{ name: 'recall_memories', arguments: { query: 'staging Postgres port' } }] }),
    () => ({ content: 'Use 6543.' }),
  ]);
  const hints = textsOf(t.reqs[0], 'user').filter((x) => x.includes('【记忆提示】'));
  expect(hints.some((h) => h.includes(ENTRY) && h.includes('team backend, shared by Alice')), `hints: ${JSON.stringify(hints).slice(0, 800)}`);
  const out = lastToolResult(t.reqs[1] ?? { messages: [] });
  expect(out.includes(ENTRY) && out.includes('team backend, shared by Alice') && out.includes('6543'), `recall_memories: ${out.slice(0, 800)}`);
  expect(!out.includes(bobProj), `the recall shows the checkout's path: ${out.slice(0, 800)}`);
  const d = await bob.turn('Consolidate your memory now.', [() => ({ toolCalls: [{ name: 'dream_now', arguments: {} }] }), () => ({ content: 'Done.' })]);
  expect(d.reason === 'completed', `dream turn: ${JSON.stringify(d).slice(0, 300)}`);
  const h = await bob.exit();
  expect(h.code === 0, `bob's host exit ${h.code}: ${h.stderr.slice(-1500)}`);
  const status = git(bobProj, 'status', '--porcelain', '--ignored', '--untracked-files=all');
  expect(status.trim() === '', `Bob's recalls and dream changed his working tree:\n${status}`);
});

finishRun(results, root);
