#!/usr/bin/env node
// The install test: somni's npm packages as a user gets them. A real local registry (verdaccio on
// 127.0.0.1, storage holding only what this test publishes, no uplink), `npm publish` of every
// dist tarball, then on a "fresh machine" (empty HOME and DSH_HOME, only PATH kept, another working
// directory) exactly `dsh plugin --profile headless add dsh-somni`; one headless turn against a fake
// model that calls recall_memories; the sidecar the plugin started, checked from the outside; an
// upgrade to the next version; removal; and the cross-compiled binaries' format.
// Env: SOMNI_VERDACCIO (verdaccio executable), SOMNI_DIST_DIR (tarballs at VERSION, default dist/),
// SOMNI_DIST_NEXT_DIR (the same at the next version, for the upgrade), INSTALL_KEEP=1 keeps the temp dir.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeModel, toolNames } from '../e2e/fake-model.mjs';
import { lastToolResult, checkRunner, expect, fakeModelRows } from '../e2e/harness.mjs';
import { userEnv as freshUserEnv, runCommand as run, startRegistry, tail } from './registry.mjs';

const PLUGIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const REPO = resolve(PLUGIN_DIR, '..');
const DIST = resolve(process.env.SOMNI_DIST_DIR || join(REPO, 'dist'));
const DIST_NEXT = process.env.SOMNI_DIST_NEXT_DIR ? resolve(process.env.SOMNI_DIST_NEXT_DIR) : '';
const VERDACCIO = process.env.SOMNI_VERDACCIO;
const PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];
const HOST_PLATFORM = `${process.platform}-${process.arch}`;
const MODEL_PKG = 'dsh-somni-model-use-lite';

// --- checks, the e2e test's style: every check runs, failures are listed at the end.
const { results, check } = checkRunner();
const measured = [];
function measure(what, value) {
  measured.push([what, value]);
  console.log(`  ---- ${what}: ${value}`);
}

/** The harness's boot error in a failed turn's stderr: its `Error:` lines, else the tail. */
const why = (s) => [...new Set(s.split('\n').filter((l) => /Error:/.test(l)).map((l) => l.trim()))].join(' | ').slice(0, 800) || tail(s, 600);
const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Tarballs of one dist folder: {version, files: {packageName: path}}. */
function distSet(dir) {
  const files = {};
  let version = '';
  for (const f of existsSync(dir) ? readdirSync(dir) : []) {
    const m = /^(dsh-somni(?:-[a-z0-9-]+?)?)-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/.exec(f);
    if (!m) continue;
    files[m[1]] = join(dir, f);
    if (m[1] === 'dsh-somni') version = m[2];
  }
  return { version, files };
}
const v1 = distSet(DIST);
const v2 = DIST_NEXT ? distSet(DIST_NEXT) : { version: '', files: {} };
const EXPECTED_PKGS = ['dsh-somni', MODEL_PKG, ...PLATFORMS.map((p) => `dsh-somni-${p}`)].sort();

const root = realpathSync(mkdtempSync(join(tmpdir(), 'somni-install-')));
const dir = (...p) => {
  const d = join(root, ...p);
  mkdirSync(d, { recursive: true });
  return d;
};
console.log(`install: dist ${DIST} (${v1.version || 'none'})${DIST_NEXT ? `, next ${DIST_NEXT} (${v2.version || 'none'})` : ''}\n         temp ${root}`);

// --- the registry (started by the first check)
/** @type {Awaited<ReturnType<typeof startRegistry>> | undefined} */
let registry;
let REG = '';
/** The environment of a user on a fresh machine (see registry.mjs), against this test's registry. */
const userEnv = (home, dshHome, extra = {}) => freshUserEnv(home, dshHome, REG, extra);

/** Package names in the registry's storage folder. */
function stored() {
  return readdirSync(registry?.storage ?? '').filter((n) => !n.startsWith('.')).sort();
}

/** Publishes every tarball of a dist set (a publisher with a token, separate from the user). */
async function publish(set) {
  const home = registry?.publisherHome ?? '';
  const out = [];
  for (const [name, file] of Object.entries(set.files)) {
    const r = await run('npm', ['publish', file, '--registry', REG], { env: userEnv(home, dir('publisher-dsh')), cwd: home });
    expect(r.code === 0, `npm publish ${name}: exit ${r.code}: ${tail(r.stderr)}`);
    out.push(name);
  }
  return out;
}

await check('verdaccio starts on 127.0.0.1 and takes a publisher', async () => {
  expect(VERDACCIO && existsSync(VERDACCIO), `SOMNI_VERDACCIO=${VERDACCIO} is not an executable (scripts/dist/setup-registry.sh installs it)`);
  registry = await startRegistry(VERDACCIO, dir('registry'));
  REG = registry.url;
});

let publishMs = 0;
await check(`npm publish of every dist tarball (${Object.keys(v1.files).length}) at ${v1.version}`, async () => {
  expect(v1.version, `no dsh-somni-*.tgz in ${DIST}: run make dist`);
  expect(JSON.stringify(Object.keys(v1.files).sort()) === JSON.stringify(EXPECTED_PKGS), `dist has ${Object.keys(v1.files).sort().join(', ')}; want ${EXPECTED_PKGS.join(', ')}`);
  const t0 = Date.now();
  await publish(v1);
  publishMs = Date.now() - t0;
  expect(JSON.stringify(stored()) === JSON.stringify(EXPECTED_PKGS), `storage holds ${stored().join(', ')}`);
});

for (const [name, file] of Object.entries(v1.files)) {
  measure(`size ${name}-${v1.version}.tgz`, `${(statSync(file).size / 1048576).toFixed(1)} MB`);
}

// --- the user's machine
const home = dir('user-home');
const dshHome = join(home, '.dsh');
const work = dir('user-home', 'projects', 'app'); // "a different working directory"
const profile = join(dshHome, 'profiles', 'headless');
const nm = join(profile, 'node_modules');
const env = userEnv(home, dshHome);
writeFileSync(join(home, '.npmrc'), `registry=${REG}\n`);

let installed;
await check('`dsh plugin --profile headless add dsh-somni` succeeds on a fresh machine', async () => {
  installed = await run('dsh', ['plugin', '--profile', 'headless', 'add', 'dsh-somni'], { cwd: work, env });
  expect(installed.code === 0, `exit ${installed.code}: ${tail(installed.stderr + installed.stdout)}`);
  measure('install time (dsh plugin add dsh-somni, empty pnpm store)', `${(installed.ms / 1000).toFixed(1)} s`);
});

await check(`the profile has dsh-somni, dsh-somni-${HOST_PLATFORM} and ${MODEL_PKG}, and no other platform package`, async () => {
  const names = readdirSync(nm).filter((n) => !n.startsWith('.'));
  for (const want of ['dsh-somni', `dsh-somni-${HOST_PLATFORM}`, MODEL_PKG]) {
    expect(names.includes(want), `${want} missing from ${nm}: ${names.join(', ')}`);
    expect(readJson(join(nm, want, 'package.json')).version === v1.version, `${want} is not ${v1.version}`);
  }
  const foreign = names.filter((n) => PLATFORMS.some((p) => n === `dsh-somni-${p}`) && n !== `dsh-somni-${HOST_PLATFORM}`);
  expect(foreign.length === 0, `foreign platform packages installed: ${foreign.join(', ')}`);
});

await check("the plugin's peers did not pull a harness into the profile", async () => {
  const names = readdirSync(nm).filter((n) => !n.startsWith('.'));
  const extra = names.filter((n) => !['dsh-somni', `dsh-somni-${HOST_PLATFORM}`, MODEL_PKG].includes(n));
  expect(extra.length === 0, `the profile's node_modules also has: ${extra.join(', ')}`);
  if (/missing peer/.test(installed?.stdout + installed?.stderr)) console.log('       (note: pnpm warned about missing peers: the plugin does not mark its @deepseek-ai peers optional)');
});

await check('the platform package carries the contract: somni.binary and somni.ortLib exist, executable binary', async () => {
  const pkgDir = join(nm, `dsh-somni-${HOST_PLATFORM}`);
  const m = readJson(join(pkgDir, 'package.json')).somni ?? {};
  expect(m.binary && existsSync(join(pkgDir, m.binary)), `somni.binary ${m.binary} missing`);
  expect(m.ortLib && existsSync(join(pkgDir, m.ortLib)), `somni.ortLib ${m.ortLib} missing`);
  expect((statSync(join(pkgDir, m.binary)).mode & 0o111) !== 0, `${m.binary} is not executable after install`);
  const sums = spawnSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: pkgDir, encoding: 'utf8' });
  expect(sums.status === 0, `SHA256SUMS: ${sums.stdout}${sums.stderr}`);
});

await check('the model package carries somni.modelDir with model.onnx, vocab.json, cedict_ts.u8 and SHA256SUMS that match', async () => {
  const pkgDir = join(nm, MODEL_PKG);
  const m = readJson(join(pkgDir, 'package.json')).somni ?? {};
  for (const f of ['model.onnx', 'vocab.json', 'cedict_ts.u8']) expect(existsSync(join(pkgDir, m.modelDir ?? '?', f)), `${m.modelDir}/${f} missing`);
  const sums = spawnSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: pkgDir, encoding: 'utf8' });
  expect(sums.status === 0, `SHA256SUMS: ${sums.stdout}${sums.stderr}`);
  for (const f of ['LICENSE-use-lite', 'LICENSE-cc-cedict']) expect(existsSync(join(pkgDir, f)), `${f} missing`);
});

await check('the bundle patch layer is active: profile bundles and --dump-config list dsh-somni', async () => {
  const bundles = readJson(join(profile, 'package.json')).dsh?.profile?.bundles ?? [];
  expect(bundles.includes('dsh-somni'), `bundles: ${bundles.join(', ')}`);
  const d = await run('dsh', ['--profile', 'headless', '--dump-config'], { cwd: work, env });
  expect(d.code === 0 && /dsh-somni/.test(d.stdout), `dump-config (exit ${d.code}) has no dsh-somni row: ${tail(d.stdout + d.stderr)}`);
});

// --- one headless turn: only the fake model patch; the plugin comes from the profile's bundle layer.
const model = await startFakeModel(() => ({ content: 'ok' }));
function writeModelPatch(file) {
  writeFileSync(file, `${fakeModelRows(model.url)}- id: session-title-llm
  disabled: true
`);
  return file;
}
const patch = writeModelPatch(join(root, 'fake-model.patch.yml'));

/** somni-sidecar processes whose executable lives under `under`, with argv, env and mapped ORT. */
function sidecarsUnder(under) {
  const out = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const exe = readlinkSync(`/proc/${pid}/exe`);
      if (!exe.startsWith(under + '/') || !/somni-sidecar/.test(exe)) continue;
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter((kv) => /^(SOMNI_|MEMORY_ROOT|SKILL_ROOT|LD_)/.test(kv));
      const maps = [...new Set(readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n').map((l) => l.split(/\s+/)[5]).filter((p) => p && /onnxruntime/.test(p)))];
      out.push({ pid: Number(pid), exe, argv, environ, maps });
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

/** One headless turn; `script` answers the agent's requests in order; sidecars are sampled at every request. */
async function turn(o) {
  const reqs = [];
  const seen = new Map();
  let firstReqMs = 0;
  const t0 = Date.now();
  model.setHandler(async (req) => {
    if (!firstReqMs) firstReqMs = Date.now() - t0;
    reqs.push(req);
    if (o.sampleUnder) for (const s of sidecarsUnder(o.sampleUnder)) seen.set(s.pid, { ...seen.get(s.pid), ...s, maps: [...new Set([...(seen.get(s.pid)?.maps ?? []), ...s.maps])] });
    const step = o.script?.[reqs.length - 1];
    return step ? step(req) : { content: 'done' };
  });
  const r = await run('dsh', ['--profile', 'headless', '--patch', patch, o.prompt], { cwd: work, env: o.env, timeoutMs: 180_000 });
  return { ...r, reqs, firstReqMs, sidecars: [...seen.values()] };
}

let first;
let baseline;
const hello = () => [() => ({ content: 'Hello from the fake model.' })];
const bhome = dir('baseline-home');
const benv = userEnv(bhome, join(bhome, '.dsh'));
await check('first turn with the plugin (plain reply) completes', async () => {
  first = await turn({ prompt: 'Say hello.', env, script: hello(), sampleUnder: dshHome });
  expect(first.code === 0 && first.stdout.includes('Hello from the fake model.'), `exit ${first.code}, out ${first.stdout}: ${why(first.stderr)}`);
  expect(toolNames(first.reqs[0]).includes('recall_memories'), `memory tools not offered: ${toolNames(first.reqs[0]).join(',')}`);
});
await check('the same turn without the plugin (a fresh DSH_HOME, profile initialised by dsh plugin) completes', async () => {
  await run('dsh', ['plugin', '--profile', 'headless', 'list'], { cwd: work, env: benv }); // what `add` does first
  baseline = await turn({ prompt: 'Say hello.', env: benv, script: hello() });
  expect(baseline.code === 0, `exit ${baseline.code}: ${why(baseline.stderr)}`);
});
if (first?.code === 0 && baseline?.code === 0) {
  const again = await turn({ prompt: 'Say hello.', env, script: hello() });
  const bagain = await turn({ prompt: 'Say hello.', env: benv, script: hello() });
  measure('first-turn latency with dsh-somni: dsh start → first model request / → exit', `${first.firstReqMs} / ${first.ms} ms (second turn: ${again.firstReqMs} / ${again.ms} ms)`);
  measure('the same turn without the plugin', `${baseline.firstReqMs} / ${baseline.ms} ms (second turn: ${bagain.firstReqMs} / ${bagain.ms} ms)`);
}

// Seed one memory the way a user (or a dream) leaves it, then let the model recall it.
const dataDir = join(dshHome, 'somni');
const FACT = 'The staging Postgres listens on port 6543, not 5432.';
mkdirSync(join(dataDir, 'memory', 'knowledge', 'staging-postgres-port'), { recursive: true });
writeFileSync(join(dataDir, 'memory', 'knowledge', 'staging-postgres-port', 'SKILL.md'), `---
name: staging-postgres-port
description: "Staging Postgres port is 6543"
type: fact
stability: 0
score: 0.5
created: 2026-11-30
last_used: 2026-11-30
last_decay: 2026-11-30
---

${FACT}
`);
let recallTurn;
await check('a turn where the model calls recall_memories: the tool answers with the stored memory', async () => {
  recallTurn = await turn({
    prompt: 'Which port does the staging database use?',
    env,
    sampleUnder: dshHome,
    script: [
      () => ({ toolCalls: [{ name: 'recall_memories', arguments: { query: 'staging database port' } }] }),
      () => ({ content: 'It is 6543.' }),
    ],
  });
  expect(recallTurn.code === 0, `exit ${recallTurn.code}: ${why(recallTurn.stderr)}`);
  expect(recallTurn.reqs.length >= 2, `model saw ${recallTurn.reqs.length} requests`);
  const out = lastToolResult(recallTurn.reqs[1]);
  expect(out.includes('6543') && !/error|unavailable|not found|unknown tool/i.test(out), `recall_memories answered: ${tail(out, 600)}`);
});

const sidecar = [...(recallTurn?.sidecars ?? []), ...(first?.sidecars ?? [])][0];
const under = (p, d) => typeof p === 'string' && (p === d || p.startsWith(d + '/'));
await check('the plugin ran the installed sidecar; nothing it was given or mapped is under the checkout', async () => {
  expect(sidecar, `no somni-sidecar process with its executable under ${dshHome} was seen during the turns`);
  const bin = realpathSync(join(nm, `dsh-somni-${HOST_PLATFORM}`, readJson(join(nm, `dsh-somni-${HOST_PLATFORM}`, 'package.json')).somni.binary));
  expect(sidecar.exe === bin, `sidecar exe ${sidecar.exe}, want ${bin}`);
  const paths = [...sidecar.argv, ...sidecar.environ.map((kv) => kv.split('=').slice(1).join('=')), ...sidecar.maps].filter((p) => p.startsWith('/'));
  const inRepo = paths.filter((p) => under(p, REPO));
  expect(inRepo.length === 0, `paths under the checkout: ${inRepo.join(', ')} (argv: ${sidecar.argv.join(' ')})`);
  const foreign = sidecar.maps.filter((p) => !under(p, dshHome));
  expect(foreign.length === 0, `ONNX Runtime mapped from outside DSH_HOME: ${foreign.join(', ')}`);
  console.log(`       argv: ${sidecar.argv.slice(1).join(' ')}${sidecar.environ.length ? `; env ${sidecar.environ.join(' ')}` : ''}; mapped: ${sidecar.maps.join(', ') || '(ORT not mapped yet when sampled)'}`);
});

function sidecarEnv() {
  const e = userEnv(home, dshHome);
  for (const kv of sidecar?.environ ?? []) {
    const i = kv.indexOf('=');
    e[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return e;
}

await check('the installed sidecar with the flags the plugin passed: ping.vector true, version, embedder local, model and ORT under DSH_HOME', async () => {
  expect(sidecar, 'no sidecar argv captured (see above)');
  const argv = [sidecar.exe, ...sidecar.argv.slice(1)];
  const r = await pingFrames(argv, sidecarEnv(), (res) => res.vector === true && Boolean(res.embed?.id));
  const last = r.results.at(-1)?.result;
  expect(last, `no ping reply: ${tail(r.stderr)}`);
  console.log(`       ping: version ${last.version}, vector ${last.vector}, embed ${JSON.stringify(last.embed)}`);
  expect(last.version === v1.version, `ping.version ${last.version}, want ${v1.version}`);
  expect(last.vector === true, `ping.vector ${last.vector} after 20 s; sidecar stderr: ${tail(r.stderr, 800)}`);
  const e = last.embed ?? {};
  expect(String(e.id).startsWith('local:') && !e.degraded, `embedder ${e.id}${e.degraded ? `, degraded: ${e.degraded}` : ''}`);
  expect(under(e.modelDir, dshHome) && under(e.runtimeLib, dshHome), `model dir ${e.modelDir}, ONNX Runtime ${e.runtimeLib}: not under DSH_HOME ${dshHome}`);
  expect(!under(e.modelDir, REPO) && !under(e.runtimeLib, REPO), 'model or ONNX Runtime under the checkout');
  const st = await run(argv[0], [...argv.slice(1), 'stats'], { env: sidecarEnv(), cwd: work, timeoutMs: 60_000 });
  const emb = /embedder (.+?), semantic ready/.exec(st.stdout)?.[1];
  expect(st.code === 0 && emb === 'local (USE-lite + CC-CEDICT), live', `stats (exit ${st.code}) says embedder ${emb}: ${tail(st.stdout + st.stderr, 800)}`);
  const log = join(dataDir, 'logs', 'somni.log');
  if (existsSync(log)) expect(!readFileSync(log, 'utf8').includes(REPO + '/'), `${log} names paths under the checkout`);
});

await check('the installed CLI run by hand (only --data-dir): doctor passes with the local model of the install, recall and stats rank with it, no make target named', async () => {
  // The binary as a user finds it in the profile: through node_modules/dsh-somni-<platform>, links and all.
  const bin = join(nm, `dsh-somni-${HOST_PLATFORM}`, readJson(join(nm, `dsh-somni-${HOST_PLATFORM}`, 'package.json')).somni.binary);
  const plain = userEnv(home, dshHome);
  const doc = await run(bin, ['--data-dir', dataDir, 'doctor'], { env: plain, cwd: work, timeoutMs: 60_000 });
  const said = doc.stdout + doc.stderr;
  expect(doc.code === 0, `doctor exit ${doc.code}: ${tail(said, 800)}`);
  expect(/install: embedder local \(USE-lite \+ CC-CEDICT\), live/.test(said), `doctor does not report the live local model: ${tail(said, 800)}`);
  expect(!/make [a-z]/.test(said), `doctor tells an npm user to run a make target: ${tail(said, 800)}`);
  const st = await run(bin, ['--data-dir', dataDir, 'stats'], { env: plain, cwd: work, timeoutMs: 60_000 });
  const emb = /embedder (.+?), semantic ready/.exec(st.stdout)?.[1];
  expect(st.code === 0 && emb === 'local (USE-lite + CC-CEDICT), live', `stats (exit ${st.code}) says embedder ${emb}: ${tail(st.stdout + st.stderr, 800)}`);
  const rc = await run(bin, ['--data-dir', dataDir, 'recall', 'staging database'], { env: plain, cwd: work, timeoutMs: 60_000 });
  expect(rc.code === 0 && !/using hash|unavailable/.test(rc.stderr), `recall (exit ${rc.code}) fell back: ${tail(rc.stdout + rc.stderr, 800)}`);
  console.log(`       doctor: ${said.split('\n').find((l) => l.startsWith('install: embedder'))}`);
});

/** Writes ping frames to a sidecar until `until(result)`. */
async function pingFrames(argv, childEnv, until, timeoutMs = 20_000) {
  const child = spawn(argv[0], argv.slice(1), { env: childEnv, stdio: ['pipe', 'pipe', 'pipe'], cwd: work });
  let stderr = '';
  let buf = '';
  const results = [];
  let wake;
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        results.push(JSON.parse(line));
        wake?.();
      } catch {
        // stdout carries only frames; ignore anything else
      }
    }
  });
  let closed = false;
  child.on('close', () => {
    closed = true;
    wake?.();
  });
  const deadline = Date.now() + timeoutMs;
  for (let id = 1; !closed && Date.now() < deadline; id++) {
    const got = new Promise((r) => (wake = r));
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: {} }) + '\n');
    await Promise.race([got, sleep(5000)]);
    const res = results.find((m) => m.id === id)?.result;
    if (res && until(res)) break;
    await sleep(250);
  }
  child.stdin.end();
  await Promise.race([new Promise((r) => (closed ? r() : child.on('close', r))), sleep(5000)]);
  if (!closed) child.kill('SIGKILL');
  return { results: results.filter((m) => m.result), stderr };
}

await check('the registry served only what the test published (no uplink)', async () => {
  expect(JSON.stringify(stored()) === JSON.stringify(EXPECTED_PKGS), `storage holds ${stored().join(', ')}`);
});

// --- upgrade
await check(`upgrade: publish ${v2.version || '(no next dist)'} and \`dsh plugin --profile headless add dsh-somni@${v2.version}\` replace plugin and binary`, async () => {
  expect(v2.version && v2.version !== v1.version, `SOMNI_DIST_NEXT_DIR=${DIST_NEXT} has no other version`);
  await publish(v2);
  const r = await run('dsh', ['plugin', '--profile', 'headless', 'add', `dsh-somni@${v2.version}`], { cwd: work, env });
  expect(r.code === 0, `exit ${r.code}: ${tail(r.stderr + r.stdout)}`);
  measure('upgrade time', `${(r.ms / 1000).toFixed(1)} s`);
  for (const p of ['dsh-somni', `dsh-somni-${HOST_PLATFORM}`, MODEL_PKG]) {
    const v = readJson(join(nm, p, 'package.json')).version;
    expect(v === v2.version, `${p} is ${v} after the upgrade`);
  }
  const bin = join(nm, `dsh-somni-${HOST_PLATFORM}`, readJson(join(nm, `dsh-somni-${HOST_PLATFORM}`, 'package.json')).somni.binary);
  const p = await pingFrames([bin, '--data-dir', dir('ping-data'), '--embed', 'off'], userEnv(home, dshHome), () => true);
  expect(p.results[0]?.result?.version === v2.version, `the installed binary's ping.version: ${JSON.stringify(p.results[0]?.result)} ${tail(p.stderr, 500)}`);
});
await check('a turn after the upgrade runs the new sidecar', async () => {
  const t = await turn({ prompt: 'Say hello.', env, sampleUnder: dshHome, script: [() => ({ content: 'Hello again.' })] });
  expect(t.code === 0 && t.stdout.includes('Hello again.'), `exit ${t.code}: ${why(t.stderr)}`);
  expect(t.sidecars.length > 0, 'no sidecar under DSH_HOME during the turn');
});

// --- removal, the way `make uninstall PROFILE=headless` does it
await check('make uninstall: dsh-somni leaves the profile (dependency, bundle layer, node_modules), turns still work', async () => {
  const r = await run('bash', [join(PLUGIN_DIR, 'scripts/install.sh'), '--uninstall', 'headless'], { cwd: work, env });
  expect(r.code === 0, `exit ${r.code}: ${tail(r.stderr + r.stdout)}`);
  const pj = readJson(join(profile, 'package.json'));
  expect(!pj.dependencies?.['dsh-somni'], `still a dependency: ${JSON.stringify(pj.dependencies)}`);
  expect(!(pj.dsh?.profile?.bundles ?? []).includes('dsh-somni'), `still a bundle layer: ${pj.dsh?.profile?.bundles}`);
  const left = readdirSync(nm).filter((n) => n.startsWith('dsh-somni'));
  expect(left.length === 0, `left in node_modules: ${left.join(', ')}`);
  const d = await run('dsh', ['--profile', 'headless', '--dump-config'], { cwd: work, env });
  expect(d.code === 0 && !/dsh-somni/.test(d.stdout), `dump-config (exit ${d.code}) still mentions dsh-somni`);
  const t = await turn({ prompt: 'Say hello.', env, script: [() => ({ content: 'Bye.' })] });
  expect(t.code === 0 && !toolNames(t.reqs[0]).includes('recall_memories'), `after removal: exit ${t.code}, tools ${toolNames(t.reqs[0] ?? {}).join(',')}`);
  expect(existsSync(join(dataDir, 'memory', 'knowledge', 'staging-postgres-port', 'SKILL.md')), 'the memory folder did not survive the removal');
});

// --- `make install PROFILE=web` from dist folders (no registry), then again after a version bump
await check(`make install: ${v1.version} then ${v2.version || '?'} into a web profile, the second really replaces plugin and binary`, async () => {
  const mhome = dir('make-install-home');
  const menv = userEnv(mhome, join(mhome, '.dsh'), { npm_config_registry: 'http://127.0.0.1:9/' }); // no registry at all
  const mnm = join(mhome, '.dsh', 'profiles', 'web', 'node_modules');
  const bin = join(mnm, `dsh-somni-${HOST_PLATFORM}`, 'bin', process.platform === 'win32' ? 'somni-sidecar.exe' : 'somni-sidecar');
  for (const [set, distDir] of [[v1, DIST], [v2, DIST_NEXT]]) {
    expect(set.version, `no dist at ${distDir}`);
    const r = await run('bash', [join(PLUGIN_DIR, 'scripts/install.sh'), 'web'], { cwd: work, env: { ...menv, SOMNI_DIST_DIR: distDir } });
    expect(r.code === 0, `install ${set.version}: exit ${r.code}: ${tail(r.stderr + r.stdout)}`);
    for (const p of ['dsh-somni', `dsh-somni-${HOST_PLATFORM}`, MODEL_PKG]) {
      const v = readJson(join(mnm, p, 'package.json')).version;
      expect(v === set.version, `${p} is ${v} after make install of ${set.version}`);
    }
    const foreign = readdirSync(mnm).filter((n) => PLATFORMS.some((p) => n === `dsh-somni-${p}`) && n !== `dsh-somni-${HOST_PLATFORM}`);
    expect(foreign.length === 0, `foreign platform packages: ${foreign.join(', ')}`);
    const p = await pingFrames([bin, '--data-dir', dir('ping-data-mi'), '--embed', 'off'], menv, () => true);
    expect(p.results[0]?.result?.version === set.version, `binary ping.version ${p.results[0]?.result?.version}, want ${set.version}`);
  }
  const kept = readdirSync(join(mhome, '.dsh', 'somni-dist'));
  expect(kept.length === 1 && kept[0].startsWith(`${v2.version}-`), `somni-dist keeps ${kept.join(', ')}`);
  const r = await run('bash', [join(PLUGIN_DIR, 'scripts/install.sh'), '--uninstall', 'web'], { cwd: work, env: menv });
  const pj = readJson(join(mhome, '.dsh', 'profiles', 'web', 'package.json'));
  expect(r.code === 0 && !pj.dependencies?.['dsh-somni'] && !JSON.stringify(pj).includes('dsh-somni'), `uninstall (exit ${r.code}) left ${JSON.stringify(pj)}: ${tail(r.stderr)}`);
});

// --- the cross-compiled binaries
const EXPECT_FILE = {
  // Linux: CGO_ENABLED=0 with purego links the dynamic loader (to dlopen ONNX Runtime), so "dynamically linked" is expected.
  'linux-x64': [/ELF 64-bit LSB executable, x86-64/, /ELF 64-bit LSB shared object, x86-64/, 'linux', 'amd64'],
  'linux-arm64': [/ELF 64-bit LSB executable, ARM aarch64/, /ELF 64-bit LSB shared object, ARM aarch64/, 'linux', 'arm64'],
  'darwin-x64': [/Mach-O 64-bit x86_64 executable/, /Mach-O 64-bit x86_64 dynamically linked shared library/, 'darwin', 'amd64'],
  'darwin-arm64': [/Mach-O 64-bit arm64 executable/, /Mach-O 64-bit arm64 dynamically linked shared library/, 'darwin', 'arm64'],
  'win32-x64': [/PE32\+ executable \(console\) x86-64.*MS Windows/, /PE32\+ executable \(DLL\).*x86-64.*MS Windows/, 'windows', 'amd64'],
};
const xdir = dir('unpacked');
for (const p of PLATFORMS) {
  await check(`dsh-somni-${p}: binary and ONNX Runtime are ${EXPECT_FILE[p][2]}/${EXPECT_FILE[p][3]}; built CGO_ENABLED=0 -trimpath`, async () => {
    const tgz = v1.files[`dsh-somni-${p}`];
    expect(tgz, `no dsh-somni-${p} tarball`);
    const d = join(xdir, p);
    mkdirSync(d, { recursive: true });
    const x = spawnSync('tar', ['-xzf', tgz, '-C', d], { encoding: 'utf8' });
    expect(x.status === 0, x.stderr);
    const pj = readJson(join(d, 'package', 'package.json'));
    const [binRe, libRe, goos, goarch] = EXPECT_FILE[p];
    expect(pj.os?.[0] === p.split('-')[0] && pj.cpu?.[0] === p.split('-')[1], `os/cpu ${pj.os}/${pj.cpu}`);
    const bin = join(d, 'package', pj.somni?.binary ?? '?');
    const f = spawnSync('file', ['-b', bin], { encoding: 'utf8' }).stdout.trim();
    expect(binRe.test(f), `file ${pj.somni?.binary}: ${f}`);
    if (pj.somni?.ortLib) {
      const lf = spawnSync('file', ['-b', join(d, 'package', pj.somni.ortLib)], { encoding: 'utf8' }).stdout.trim();
      expect(libRe.test(lf), `file ${pj.somni.ortLib}: ${lf}`);
    }
    expect(existsSync(join(d, 'package', 'LICENSE-onnxruntime')) && /Microsoft Corporation/.test(readFileSync(join(d, 'package', 'LICENSE-onnxruntime'), 'utf8')), 'LICENSE-onnxruntime missing');
    expect(existsSync(join(d, 'package', 'LICENSE-opencc')) && /Apache License/.test(readFileSync(join(d, 'package', 'LICENSE-opencc'), 'utf8')), 'LICENSE-opencc missing');
    const m = spawnSync('go', ['version', '-m', bin], { encoding: 'utf8' });
    expect(m.status === 0, `go version -m: ${m.stderr}`);
    const info = m.stdout;
    // (-trimpath keeps -ldflags out of the build info: the stamped version is checked by running the host's binary)
    for (const want of [`GOOS=${goos}`, `GOARCH=${goarch}`, 'CGO_ENABLED=0', '-trimpath=true']) expect(info.includes(`build\t${want}`), `go version -m lacks ${want}`);
  });
}

// --- report
registry?.stop();
await model.close();
const failed = results.filter((r) => !r.ok);
console.log('\nmeasured:');
for (const [k, v] of measured) console.log(`  ${k}: ${v}`);
if (publishMs) console.log(`  publishing ${Object.keys(v1.files).length} tarballs: ${(publishMs / 1000).toFixed(1)} s`);
if (failed.length) {
  console.log('\nfailed:');
  for (const f of failed) console.log(`  - ${f.name}`);
}
if (process.env.INSTALL_KEEP === '1') console.log(`kept ${root}`);
else rmSync(root, { recursive: true, force: true });
console.log(`install: ${results.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
