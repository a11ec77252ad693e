// Resolution of the sidecar, ONNX Runtime and model from installed packages, and the plugin loading
// with memory off when they are missing. Each test builds a fake node_modules tree in a temp dir and
// copies the compiled plugin into it, so resolution really runs from the plugin's own location.
// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolveConfig } from '../../lib/config.js';
import { sidecarArgv } from '../../lib/index.js';
import { explainStartFailure, platformPackage, resolveInstall } from '../../lib/install.js';
import { partial } from './doubles.mjs';
import { FAKE_SIDECAR, fakeHost, localSpawn, noticeSource, noticesIn, preStep, textOf, waitFor } from './helpers.mjs';

/** @typedef {import('@deepseek-ai/dsh-tools').ToolRunContext} ToolRunContext */
/** @typedef {import('@deepseek-ai/dsh-tools').ToolDefinition} ToolDefinition */

/**
 * The registered tool `name`, failing the test when there is none.
 * @param {ReturnType<typeof fakeHost>} host
 * @param {string} name
 * @returns {ToolDefinition}
 */
function toolOf(host, name) {
  const t = host.tools.get(name);
  assert.ok(t, `${name} not registered: ${[...host.tools.keys()].join(',')}`);
  return t;
}

/**
 * A tool run context with a fresh signal (all the plugin's tools read).
 * @returns {ToolRunContext}
 */
const runCtx = () => partial({ signal: new AbortController().signal });

const LIB = fileURLToPath(new URL('../../lib/', import.meta.url));
const HERE = `${process.platform}-${process.arch}`;
const PLATFORM_PKG = platformPackage(process.platform, process.arch);

/** @type {(file: string, obj: unknown) => void} */
const writeJson = (file, obj) => writeFileSync(file, JSON.stringify(obj, null, 2));

/**
 * A temp folder laid out like an installed profile: node_modules/dsh-somni (the compiled plugin),
 * optionally the platform package (its binary a script that records argv and runs the fake
 * sidecar, installed 0644 as pnpm does) and the model package.
 * @param {{ platformPkg?: boolean, modelPkg?: boolean, ortLib?: boolean, pkgLocalBin?: boolean, exportsWithoutPackageJson?: boolean }} [o]
 */
function fakeTree(o = {}) {
  const { platformPkg = true, modelPkg = true, ortLib = true, pkgLocalBin = false, exportsWithoutPackageJson = false } = o;
  const root = mkdtempSync(join(tmpdir(), 'somni-tree-'));
  const nm = join(root, 'node_modules');
  const plugin = join(nm, 'dsh-somni');
  mkdirSync(join(plugin, 'lib'), { recursive: true });
  for (const f of readdirSync(LIB)) if (f.endsWith('.js')) copyFileSync(join(LIB, f), join(plugin, 'lib', f));
  writeJson(join(plugin, 'package.json'), { name: 'dsh-somni', version: '0.1.0', type: 'module', main: './lib/index.js' });
  const argvFile = join(root, 'argv');
  const script = `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvFile}'\nexec '${process.execPath}' '${FAKE_SIDECAR}' "$@"\n`;
  if (pkgLocalBin) {
    mkdirSync(join(plugin, 'bin'));
    writeFileSync(join(plugin, 'bin/somni-sidecar'), script, { mode: 0o644 });
  }
  const pkgDir = join(nm, PLATFORM_PKG);
  if (platformPkg) {
    mkdirSync(join(pkgDir, 'bin'), { recursive: true });
    mkdirSync(join(pkgDir, 'lib'));
    writeFileSync(join(pkgDir, 'bin/somni-sidecar'), script, { mode: 0o644 });
    if (ortLib) writeFileSync(join(pkgDir, 'lib/libonnxruntime.so.1'), '');
    writeJson(join(pkgDir, 'package.json'), {
      name: PLATFORM_PKG,
      version: '0.1.0',
      os: [process.platform],
      cpu: [process.arch],
      somni: { binary: 'bin/somni-sidecar', ortLib: 'lib/libonnxruntime.so.1' },
      ...(exportsWithoutPackageJson ? { exports: { '.': './bin/somni-sidecar' } } : {}),
    });
  }
  const modelDir = join(nm, 'dsh-somni-model-use-lite');
  if (modelPkg) {
    mkdirSync(join(modelDir, 'use-lite'), { recursive: true });
    for (const f of ['model.onnx', 'vocab.json', 'cedict_ts.u8']) writeFileSync(join(modelDir, 'use-lite', f), '');
    writeJson(join(modelDir, 'package.json'), { name: 'dsh-somni-model-use-lite', version: '0.1.0', somni: { modelDir: 'use-lite' } });
  }
  return { root, nm, plugin, pkgDir, modelDir, argvFile, from: join(plugin, 'lib/install.js'), entry: join(plugin, 'lib/index.js'), dataDir: join(root, 'data') };
}

/**
 * Loads the copied plugin and applies it to a fake host.
 * @param {ReturnType<typeof fakeTree>} tree
 * @param {Record<string, unknown>} config - raw plugin config over the tree's data dir, dreams off.
 * @param {Record<string, string>} [env]
 */
async function load(tree, config, env = {}) {
  /** @type {typeof import('../../lib/index.js')} */
  const plugin = await import(pathToFileURL(tree.entry).href);
  const { spawn, specs } = localSpawn(env);
  const host = fakeHost({ spawn });
  plugin.apply(host.ctx, { dataDir: tree.dataDir, dream: { enabled: false }, ...config });
  return { host, specs };
}

test('platform and model packages: binary, --ort-lib and --embed-model-dir come from them, the binary is made executable', () => {
  const t = fakeTree();
  const install = resolveInstall(resolveConfig({}), { from: t.from });
  assert.deepEqual(install.problems, []);
  assert.equal(install.binarySource, 'platform-package');
  assert.equal(install.binary, join(t.pkgDir, 'bin/somni-sidecar'));
  assert.ok(statSync(install.binary).mode & 0o100, 'exec bit restored');
  assert.equal(install.ortLib, join(t.pkgDir, 'lib/libonnxruntime.so.1'));
  assert.equal(install.modelDir, join(t.modelDir, 'use-lite'));
  const argv = sidecarArgv(install.binary, resolveConfig({}), '/d', install);
  assert.deepEqual(argv.slice(0, 11), [install.binary, '--data-dir', '/d', '--llm', 'host', '--embed', 'local', '--embed-model-dir', install.modelDir, '--ort-lib', install.ortLib]);
});

test('config wins: config.binary and config.embed.modelDir are used as given; the ONNX Runtime still comes from the platform package', () => {
  const t = fakeTree();
  const own = join(t.root, 'my-sidecar');
  writeFileSync(own, '#!/bin/sh\n', { mode: 0o755 });
  const mine = join(t.root, 'my-model');
  mkdirSync(mine);
  const install = resolveInstall(resolveConfig({ binary: own, embed: { modelDir: mine } }), { from: t.from });
  assert.deepEqual(install.problems, []);
  assert.equal(install.binary, own);
  assert.equal(install.binarySource, 'config');
  assert.equal(install.modelDir, mine);
  assert.equal(install.ortLib, join(t.pkgDir, 'lib/libonnxruntime.so.1'));
});

test('non-local embedders need neither the model nor ONNX Runtime: no model dir, no problems when they are absent', () => {
  const t = fakeTree({ modelPkg: false, ortLib: false });
  const install = resolveInstall(resolveConfig({ embed: { provider: 'hash' } }), { from: t.from });
  assert.deepEqual(install.problems, []);
  assert.equal(install.modelDir, undefined);
  assert.ok(install.binary, 'the binary found');
  assert.ok(!sidecarArgv(install.binary, resolveConfig({ embed: { provider: 'hash' } }), '/d', install).includes('--embed-model-dir'));
});

test('a platform package whose exports hide package.json is still found', () => {
  const t = fakeTree({ exportsWithoutPackageJson: true });
  const install = resolveInstall(resolveConfig({}), { from: t.from });
  assert.equal(install.binarySource, 'platform-package', JSON.stringify(install));
});

test('win32 and darwin: .exe and their ONNX Runtime file names, defaults when the somni field is absent', () => {
  const t = fakeTree({ platformPkg: false, modelPkg: false });
  for (const [platform, arch, exe, lib] of [['win32', 'x64', 'bin/somni-sidecar.exe', 'lib/onnxruntime.dll'], ['darwin', 'arm64', 'bin/somni-sidecar', 'lib/libonnxruntime.dylib']]) {
    const dir = join(t.nm, `dsh-somni-${platform}-${arch}`);
    mkdirSync(join(dir, 'bin'), { recursive: true });
    mkdirSync(join(dir, 'lib'));
    writeFileSync(join(dir, exe), '#!/bin/sh\n', { mode: 0o755 });
    writeFileSync(join(dir, lib), '');
    writeJson(join(dir, 'package.json'), { name: `dsh-somni-${platform}-${arch}`, version: '0.1.0' });
    const install = resolveInstall(resolveConfig({ embed: { provider: 'hash' } }), { from: t.from, platform, arch });
    assert.equal(install.binary, join(dir, exe), platform);
    assert.equal(install.ortLib, join(dir, lib), platform);
  }
});

test('dev layout: no platform package, the binary inside the plugin package is used without a notice', () => {
  const t = fakeTree({ platformPkg: false, modelPkg: false, pkgLocalBin: true });
  const install = resolveInstall(resolveConfig({}), { from: t.from });
  assert.deepEqual(install.problems, [], 'a checkout lets the sidecar find its own model');
  assert.equal(install.binarySource, 'package-local');
  assert.equal(install.binary, join(t.plugin, 'bin/somni-sidecar'));
  assert.equal(install.modelDir, undefined);
  assert.ok(install.notes.some((n) => n.includes(PLATFORM_PKG)), install.notes.join('\n'));
});

test('missing pieces are problems that name the platform, the package and the fix', () => {
  const none = resolveInstall(resolveConfig({}), { from: fakeTree({ platformPkg: false }).from });
  assert.equal(none.binary, undefined);
  const [p] = none.problems;
  assert.equal(p.key, 'binary');
  assert.equal(p.severity, 'off');
  for (const s of [HERE, PLATFORM_PKG, 'optional', 'config.binary', 'Memory features are off']) assert.ok(p.message.includes(s), `${s} not in: ${p.message}`);

  const odd = resolveInstall(resolveConfig({}), { from: fakeTree({ platformPkg: false }).from, platform: 'freebsd', arch: 'riscv64' });
  assert.match(odd.problems[0].message, /no somni sidecar is published for freebsd-riscv64 \(published: linux-x64, .*win32-x64\).*make build.*config\.binary/);

  const noBinary = fakeTree();
  writeJson(join(noBinary.pkgDir, 'package.json'), { name: PLATFORM_PKG, somni: { binary: 'bin/gone' } });
  assert.match(resolveInstall(resolveConfig({}), { from: noBinary.from }).problems[0].message, /has no sidecar binary at .*bin\/gone/);

  const cfg = resolveInstall(resolveConfig({ binary: '/nope/somni-sidecar' }), { from: noBinary.from });
  assert.match(cfg.problems[0].message, /config\.binary \/nope\/somni-sidecar does not exist/);

  const partial = resolveInstall(resolveConfig({}), { from: fakeTree({ ortLib: false, modelPkg: false }).from });
  assert.ok(partial.binary, 'the sidecar still runs');
  assert.deepEqual(partial.problems.map((x) => [x.key, x.severity]), [['ort-lib', 'degraded'], ['model', 'degraded']]);
  for (const x of partial.problems) assert.match(x.message, /falls back/);
  assert.match(partial.problems[1].message, /dsh-somni-model-use-lite is not installed/);
});

test('start failures are explained from the exit and the last stderr lines', () => {
  const missing = explainStartFailure('failed to start: spawn /x ENOENT', [], fileURLToPath(import.meta.url));
  assert.match(missing, /program loader is missing .*musl/);
  assert.match(explainStartFailure('somni sidecar exited (code 127, signal none)', ['/x: error while loading shared libraries: libfoo.so'], '/x'), /did not start: exited \(code 127.*shared library.*Its last output: \/x: error while loading/);
  assert.match(explainStartFailure('failed to start: spawn /x EACCES', [], '/x'), /not executable/);
  assert.match(explainStartFailure('failed to start: spawn /x ENOEXEC', [], '/x'), /another OS or CPU/);
});

test('the loaded plugin passes the packages\' paths to the sidecar and copies its stderr into somni.log', async () => {
  const t = fakeTree();
  const { host, specs } = await load(t, {});
  await waitFor(() => host.tools.get('recall_memories')?.description === 'Recall.', 5000, 'the fake sidecar\'s tools.list');
  const argv = readFileSync(t.argvFile, 'utf8').trim().split('\n');
  assert.equal(specs[0].argv[0], join(t.pkgDir, 'bin/somni-sidecar'));
  assert.deepEqual(argv.slice(argv.indexOf('--embed-model-dir'), argv.indexOf('--embed-model-dir') + 2), ['--embed-model-dir', join(t.modelDir, 'use-lite')]);
  assert.deepEqual(argv.slice(argv.indexOf('--ort-lib'), argv.indexOf('--ort-lib') + 2), ['--ort-lib', join(t.pkgDir, 'lib/libonnxruntime.so.1')]);
  assert.deepEqual(noticesIn(await preStep(host, 's1', 'hello')), [], 'nothing to tell');
  await host.unload();
  const log = readFileSync(join(t.dataDir, 'logs/somni.log'), 'utf8');
  assert.match(log, /INFO somni\.fake serving ping/, 'the sidecar\'s stderr line');
  assert.match(log, /^\S+Z INFO somni somni sidecar fake-1 up/m, 'the plugin\'s own line');
});

test('no platform package: the plugin loads, memory is off, the notice says why once per session, tools error clearly', async () => {
  const t = fakeTree({ platformPkg: false });
  const { host, specs } = await load(t, {});
  assert.equal(specs.length, 0, 'nothing spawned');
  const first = noticesIn(await preStep(host, 's1', 'hi'));
  assert.equal(first.length, 1);
  const text = textOf(first[0]);
  for (const s of [HERE, PLATFORM_PKG, 'Memory features are off', 'dsh plugin add dsh-somni', 'somni.log']) assert.ok(text.includes(s), `${s} not in: ${text}`);
  const source = noticeSource(first[0]);
  assert.ok(source.summary.length <= 120 && source.summary.includes(HERE), source.summary);
  assert.equal(source.plugin, 'dsh-somni');
  assert.deepEqual(noticesIn(await preStep(host, 's1', 'again')), [], 'not per turn');
  assert.equal(noticesIn(await preStep(host, 's2', 'new session')).length, 1, 'each session hears it once');
  assert.deepEqual(noticesIn(await preStep(host, 'sub', 'x', 'subagent')), [], 'subagents are not told');

  const recall = host.tools.get('recall_memories');
  assert.ok(recall, `stand-in tools registered: ${[...host.tools.keys()].join(',')}`);
  await assert.rejects(recall.execute({ query: 'x' }, runCtx()), (/** @type {Error} */ err) => {
    assert.match(err.message, /recall_memories is unavailable: .*no somni sidecar for .*not installed.*details: .*somni\.log/);
    return true;
  });
  await assert.rejects(toolOf(host, 'dream_now').execute({}, runCtx()), /Dream failed: somni memory is off/);
  await host.unload();
  const log = readFileSync(join(t.dataDir, 'logs/somni.log'), 'utf8');
  assert.match(log, new RegExp(`ERROR somni no somni sidecar for ${HERE}`));
  assert.equal(log.match(/ERROR somni no somni sidecar/g)?.length, 1, 'logged once');
});

test('a degraded embedder reported by ping is noticed once per session, not per turn; an absent field is fine', async () => {
  const t = fakeTree();
  // As the real sidecar answers: the readiness ping knows only the configured provider; the index
  // opens after it, and then ping says which embedder is used and why.
  const env = {
    FAKE_SIDECAR_PING_EXTRA: JSON.stringify({ embed: { provider: 'local' } }),
    FAKE_SIDECAR_PING_LATER: JSON.stringify({ embed: { provider: 'local', id: 'hash-256', degraded: 'onnxruntime: cannot load libonnxruntime.so.1' } }),
  };
  const { host } = await load(t, {}, env);
  await waitFor(() => host.tools.get('recall_memories')?.description === 'Recall.', 5000, 'sidecar up (its tools.list)');
  assert.deepEqual(noticesIn(await preStep(host, 's0', 'before the index opened')), [], 'nothing known yet');
  await waitFor(async () => noticesIn(await preStep(host, 's0', 'poll')).length === 1, 4000, 'the degraded embedder noticed after a later ping');
  /** @type {import('@deepseek-ai/dsh-session').UserMessage[]} */
  const seen = [];
  for (let turn = 0; turn < 3; turn++) seen.push(...noticesIn(await preStep(host, 's1', `turn ${turn}`)));
  assert.equal(seen.length, 1, 'one notice in three turns');
  assert.match(textOf(seen[0]), /the local embedder is not used: onnxruntime: cannot load libonnxruntime\.so\.1\. Recall uses hash-256 instead\./);
  assert.match(noticeSource(seen[0]).summary, /^dsh-somni: embedder degraded: onnxruntime/);
  assert.ok(noticeSource(seen[0]).summary.length <= 120);
  assert.equal(noticesIn(await preStep(host, 's2', 'other session')).length, 1);
  await host.unload();
  const log = readFileSync(join(t.dataDir, 'logs/somni.log'), 'utf8');
  assert.equal(log.match(/WARNING somni the local embedder is not used/g)?.length, 1, 'logged once however often ping says it');
});

test('a failed automatic git sync reported by ping is noticed once per session with git\'s sentence; in step, nothing', async () => {
  const said = 'cannot reach git@example.invalid:me/memory.git (git said: ssh: connect to host example.invalid port 22: Network is unreachable): check the address and the network, then run sync again';
  const t = fakeTree();
  const env = { FAKE_SIDECAR_PING_EXTRA: JSON.stringify({ embed: { provider: 'hash', id: 'hash', degraded: '' }, sync: { inStep: false, lastAt: '2026-12-07T10:00:00Z', said, failed: true } }) };
  const { host } = await load(t, {}, env);
  const notice = await waitFor(async () => noticesIn(await preStep(host, 's1', 'hi'))[0], 5000, 'the sync notice');
  assert.match(textOf(notice), /the automatic git sync of memory failed: cannot reach git@example\.invalid:me\/memory\.git .*Memory keeps working on this machine/);
  assert.match(noticeSource(notice).summary, /^dsh-somni: memory sync failed: cannot reach/);
  assert.ok(noticeSource(notice).summary.length <= 120);
  for (let turn = 0; turn < 3; turn++) assert.deepEqual(noticesIn(await preStep(host, 's1', `turn ${turn}`)), [], 'told once a session');
  assert.equal(noticesIn(await preStep(host, 's2', 'other session')).length, 1);
  await host.unload();
  assert.equal(readFileSync(join(t.dataDir, 'logs/somni.log'), 'utf8').match(/WARNING somni the automatic git sync of memory failed/g)?.length, 1, 'logged once');

  const u = fakeTree();
  const quiet = await load(u, {}, { FAKE_SIDECAR_PING_EXTRA: JSON.stringify({ embed: { provider: 'hash', id: 'hash', degraded: '' }, sync: { inStep: true, lastAt: '2026-12-07T10:00:00Z', said: 'in step with origin', failed: false } }) });
  await waitFor(() => quiet.host.tools.get('recall_memories')?.description === 'Recall.', 5000, 'sidecar up (its tools.list)');
  assert.deepEqual(noticesIn(await preStep(quiet.host, 's1', 'hi')), [], 'a sync in step is not news');
  await quiet.host.unload();
});

test('a binary that cannot run: the start failure is noticed with the exit and its last output', async () => {
  const t = fakeTree({ platformPkg: false, modelPkg: false });
  const bogus = join(t.root, 'not-a-binary');
  writeFileSync(bogus, 'this is not a program\n', { mode: 0o755 });
  const { host } = await load(t, { binary: bogus, embed: { provider: 'hash' } });
  const notice = await waitFor(async () => noticesIn(await preStep(host, 's1', 'hi'))[0], 5000, 'start-failure notice');
  const text = textOf(notice);
  assert.match(text, /did not start: (exited \(code 127|failed to start)/, text);
  assert.ok(text.includes(bogus), text);
  assert.match(noticeSource(notice).summary, /did not start/);
  // Until it comes up, the memory tools exist and say why they fail.
  await assert.rejects(toolOf(host, 'recall_memories').execute({ query: 'x' }, runCtx()), /recall_memories is unavailable: the somni sidecar .* did not start/);
  await host.unload();
  assert.ok(existsSync(join(t.dataDir, 'logs/somni.log')));
  assert.match(readFileSync(join(t.dataDir, 'logs/somni.log'), 'utf8'), /ERROR somni the somni sidecar .*did not start/);
});

test('a start that fails once: the shipped tools say why until the restart succeeds, then the sidecar\'s own; later sessions are not told', async () => {
  const t = fakeTree({ platformPkg: false, modelPkg: false });
  const marker = join(t.root, 'failed-once');
  const flaky = join(t.root, 'flaky-sidecar');
  writeFileSync(flaky, `#!/bin/sh\nif [ ! -f '${marker}' ]; then : > '${marker}'; echo 'boom: first start' >&2; exit 3; fi\nexec '${process.execPath}' '${FAKE_SIDECAR}' "$@"\n`, { mode: 0o755 });
  const { host } = await load(t, { binary: flaky, embed: { provider: 'hash' } });
  // The shipped schemas are registered at load; until the sidecar comes up their calls say why.
  assert.match(toolOf(host, 'recall_memories').description, /Search long-term memory/);
  const told = await waitFor(async () => {
    const n = noticesIn(await preStep(host, 's1', 'hi'));
    return n.length > 0 ? n : undefined;
  }, 3000, 'the start-failure notice');
  assert.equal(told.length, 1);
  assert.match(textOf(told[0]), /did not start: exited \(code 3, signal none\)\. Memory features are off while it is down .* Its last output: boom: first start/);
  await waitFor(() => host.tools.get('recall_memories')?.description === 'Recall.', 8000, 'the real tools after the restart');
  const r = await toolOf(host, 'recall_memories').execute({ query: 'tea' }, runCtx());
  assert.ok(typeof r === 'string', `a text result: ${JSON.stringify(r)}`);
  assert.match(r, /recalled for tea/);
  assert.deepEqual(noticesIn(await preStep(host, 's2', 'later session')), [], 'a resolved start failure is not news');
  await host.unload();
});

test('the shipped tools are there at load, and a call made before the sidecar is up waits for it', async () => {
  const t = fakeTree({ platformPkg: false, modelPkg: false });
  const slow = join(t.root, 'slow-sidecar');
  writeFileSync(slow, `#!/bin/sh\nsleep 1\nexec '${process.execPath}' '${FAKE_SIDECAR}' "$@"\n`, { mode: 0o755 });
  const { host } = await load(t, { binary: slow, embed: { provider: 'hash' } });
  // Synchronously after apply: the first assembly of a session already has them.
  for (const name of ['recall_memories', 'add_intention', 'list_intentions', 'dream_now']) assert.ok(host.tools.has(name), `${name} not registered at load`);
  assert.match(toolOf(host, 'add_intention').description, /^Set a reminder/, 'the shipped schema');
  const t0 = Date.now();
  const out = await toolOf(host, 'add_intention').execute({ what: 'water the plants' }, runCtx());
  assert.equal(out, 'added pi-1: water the plants');
  assert.ok(Date.now() - t0 >= 500, 'the call waited for the start');
  // Once the sidecar answered tools.list, its own schemas replace the shipped ones that differ.
  await waitFor(() => host.tools.get('recall_memories')?.description === 'Recall.', 5000, 'the sidecar\'s tools.list');
  await host.unload();
});

test('a missing ONNX Runtime is told when the sidecar cannot say otherwise, and dropped when it embeds locally after all', async () => {
  // An older sidecar (no embed field in ping): the plugin's own finding is all there is.
  const older = fakeTree({ ortLib: false });
  const a = await load(older, {});
  await waitFor(() => a.host.tools.get('recall_memories')?.description === 'Recall.', 5000, 'sidecar up (its tools.list)');
  const told = noticesIn(await preStep(a.host, 's1', 'hi'));
  assert.equal(told.length, 1);
  assert.match(textOf(told[0]), /ONNX Runtime library .*libonnxruntime\.so\.1 is missing from dsh-somni-.*falls back/);
  await a.host.unload();
  assert.match(readFileSync(join(older.dataDir, 'logs/somni.log'), 'utf8'), /WARNING somni the ONNX Runtime library/);

  // A sidecar that found a runtime itself and loaded the model: nothing to tell.
  const found = fakeTree({ ortLib: false });
  const env = { FAKE_SIDECAR_PING_EXTRA: JSON.stringify({ embed: { provider: 'local' } }), FAKE_SIDECAR_PING_LATER: JSON.stringify({ embed: { provider: 'local', id: 'local:use-lite' } }) };
  const b = await load(found, {}, env);
  await waitFor(() => b.host.tools.get('recall_memories')?.description === 'Recall.', 5000, 'sidecar up (its tools.list)');
  await new Promise((r) => setTimeout(r, 1500)); // the embedder check after the readiness ping
  assert.deepEqual(noticesIn(await preStep(b.host, 's1', 'hi')), []);
  await b.host.unload();
});
