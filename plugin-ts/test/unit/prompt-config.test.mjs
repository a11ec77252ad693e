// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PromptCache, SECTIONS, neutralizeBraces, toPromptTexts } from '../../lib/prompt.js';
import { Config, DEFAULTS, parseConfig, resolveConfig } from '../../lib/config.js';
import { join } from 'node:path';
import { dataDirOf, sidecarArgv, sidecarEnv } from '../../lib/index.js';

test('braces are neutralised so rc.8 interpolation cannot see {{name}}', () => {
  const out = neutralizeBraces('likes {{foo}} and {{{bar}}} but {single}');
  assert.ok(!out.includes('{{'), out);
  assert.equal(out.replaceAll('\u200b', ''), 'likes {{foo}} and {{{bar}}} but {single}');
  // The harness's rule: a `{{` followed by `}}` is a variable reference.
  assert.doesNotMatch(out, /\{\{[^}]*\}\}/);
});

test('sections: names and orders', () => {
  assert.deepEqual(SECTIONS.map((s) => [s.key, s.order]), [['identity', 100], ['intentions', 130], ['discipline', 1200]]);
});

test('prompt cache: concurrent refreshes share a call, a new message queues one follow-up, failures keep old text', async () => {
  /** @type {(string | undefined)[]} */
  const seen = [];
  /** @type {(v?: unknown) => void} */
  let release = () => {};
  let fail = false;
  /** @type {string[]} */
  const errors = [];
  const cache = new PromptCache(async (msg) => {
    seen.push(msg);
    await new Promise((/** @type {(v?: unknown) => void} */ r) => (release = r));
    if (fail) throw new Error('down');
    return { identity: `id ${msg ?? '-'}`, intentions: '{{x}}', discipline: 'd' };
  }, (e) => errors.push(e.message));
  const p1 = cache.refresh();
  const p2 = cache.refresh();
  assert.equal(p1, p2);
  const p3 = cache.refresh('hello');
  const p4 = cache.refresh('latest');
  assert.equal(p3, p4);
  release();
  await p1;
  assert.equal(cache.text('identity'), 'id -');
  await new Promise((r) => setImmediate(r));
  release();
  await p3;
  assert.deepEqual(seen, [undefined, 'latest']);
  assert.equal(cache.text('identity'), 'id latest');
  assert.ok(!cache.text('intentions').includes('{{'));
  fail = true;
  const p5 = cache.refresh();
  release();
  await p5;
  assert.deepEqual(errors, ['down']);
  assert.equal(cache.text('identity'), 'id latest');
  assert.deepEqual(toPromptTexts({ identity: 1, intentions: 'i' }), { identity: '', intentions: 'i', discipline: '' });
});

test('config: every key optional with defaults; Standard Schema shape', () => {
  assert.deepEqual(resolveConfig(undefined), DEFAULTS);
  assert.deepEqual(resolveConfig({}), DEFAULTS);
  const r = Config['~standard'].validate({ assoc: { threshold: 0.6 }, dream: { openai: { model: 'gpt' } } });
  assert.equal(r.issues, undefined);
  assert.equal(r.value.assoc.threshold, 0.6);
  assert.equal(r.value.assoc.gap, undefined, 'unset gates stay unset: the sidecar defaults them');
  assert.equal(r.value.dream.openai.model, 'gpt');
  assert.equal(r.value.dream.openai.apiKeyEnv, 'OPENAI_API_KEY');
  assert.equal(Config['~standard'].version, 1);
});

test('config: invalid values and unknown keys fail with the path', () => {
  /** @type {[unknown, RegExp][]} */
  const cases = [
    [{ assoc: { threshold: 2 } }, /assoc.threshold must be within \[0, 1\]/],
    [{ assoc: { maxItems: 1.5 } }, /assoc.maxItems must be an integer/],
    [{ capture: { enabled: 'yes' } }, /capture.enabled must be true or false/],
    [{ dream: { llm: 'gpt' } }, /dream.llm must be one of host, openai/],
    [{ embed: { provider: 'onnx' } }, /embed.provider must be one of local, http, hash, off/],
    [{ dream: { idelMs: 5 } }, /unknown key dream.idelMs/],
    [{ dream: { tickMs: 10 } }, /dream.tickMs must be within \[100, 3600000\]/],
    [{ inject: 'all' }, /inject must be an object/],
    [[], /\(root\) must be an object/],
  ];
  for (const [input, re] of cases) {
    const r = parseConfig(input);
    assert.ok(r.issues, JSON.stringify(input));
    assert.match(r.issues.map((i) => i.message).join('\n'), re);
    assert.throws(() => resolveConfig(input), re);
  }
  const r = parseConfig({ assoc: { threshold: -1 } });
  assert.deepEqual(r.issues?.[0].path, ['assoc', 'threshold']);
});

test('sidecar argv and env come from the config only', () => {
  const c = resolveConfig({ embed: { provider: 'hash' }, assoc: { threshold: 0.6, maxItems: 3 }, logLevel: 'debug', dream: { llm: 'openai', maxIterations: 40, openai: { baseUrl: 'http://x/v1', model: 'm', apiKeyEnv: 'MY_KEY' } } });
  assert.deepEqual(sidecarArgv('/bin/s', c, '/d'), ['/bin/s', '--data-dir', '/d', '--llm', 'openai', '--embed', 'hash', '--assoc-threshold', '0.6', '--assoc-max-items', '3', '--log-level', 'debug']);
  const plain = sidecarArgv('/bin/s', resolveConfig({}), '/d');
  assert.ok(!plain.some((a) => a.startsWith('--assoc-')), `nothing set: the sidecar's gate defaults apply (${plain.join(' ')})`);
  const env = sidecarEnv(c, { MY_KEY: 'sk-1', OPENAI_API_KEY: 'ambient', SOMNI_DATA_DIR: '/elsewhere', SOMNI_COS_FLOOR: '0.4', PATH: '/bin' });
  assert.deepEqual(env, { OPENAI_API_KEY: undefined, SOMNI_DATA_DIR: undefined, SLEEP_MAX_ITERS: '40', SLEEP_BASE_URL: 'http://x/v1', SLEEP_MODEL: 'm', SLEEP_API_KEY: 'sk-1' });
  const host = sidecarEnv(resolveConfig({}), { OPENAI_API_KEY: 'ambient' });
  assert.deepEqual(host, { OPENAI_API_KEY: undefined }, 'host mode forwards no key');
  assert.deepEqual(sidecarArgv('/s', resolveConfig({ embed: { modelDir: '/m' } }), '/d').slice(5, 9), ['--embed', 'local', '--embed-model-dir', '/m']);
  assert.equal(dataDirOf(resolveConfig({}), { DSH_HOME: '/h' }), '/h/somni');
});

test('sync.interval: passed as --sync-interval only when set; the ambient SOMNI_SYNC_INTERVAL is the config\'s to set', () => {
  assert.equal(resolveConfig({}).sync.interval, '');
  assert.ok(!sidecarArgv('/s', resolveConfig({}), '/d').includes('--sync-interval'), 'unset: the sidecar default');
  assert.deepEqual(sidecarArgv('/s', resolveConfig({ sync: { interval: ' 10m ' } }), '/d').slice(-2), ['--sync-interval', '10m']);
  assert.deepEqual(sidecarArgv('/s', resolveConfig({ sync: { interval: 'off' } }), '/d').slice(-2), ['--sync-interval', 'off']);
  assert.throws(() => resolveConfig({ sync: { interval: 5 } }), /interval must be a string/);
  assert.deepEqual(sidecarEnv(resolveConfig({}), { SOMNI_SYNC_INTERVAL: '1s' }), { SOMNI_SYNC_INTERVAL: undefined });
});

test('teams: each pool passed as --team NAME=FOLDER, relative folders resolved from the working directory; bad names and folders refused', () => {
  assert.deepEqual(resolveConfig({}).teams, {});
  assert.ok(!sidecarArgv('/s', resolveConfig({}), '/d').includes('--team'), 'none: no flag');
  const argv = sidecarArgv('/s', resolveConfig({ teams: { backend: '/src/backend/.somni', ops: './.somni' } }), '/d');
  assert.deepEqual(argv.slice(-4), ['--team', 'backend=/src/backend/.somni', '--team', `ops=${join(process.cwd(), '.somni')}`]);
  assert.throws(() => resolveConfig({ teams: { Backend: '/x' } }), /teams\.Backend: a team name/);
  assert.throws(() => resolveConfig({ teams: { backend: '' } }), /teams\.backend must be the pool's folder/);
  assert.throws(() => resolveConfig({ teams: ['/x'] }), /teams must map team names to folders/);
});

test('timezone: passed as --timezone only when set; the ambient SOMNI_TIMEZONE is the config\'s to set', () => {
  assert.equal(resolveConfig({}).timezone, '');
  assert.ok(!sidecarArgv('/s', resolveConfig({}), '/d').includes('--timezone'), 'unset: the sidecar uses the machine zone');
  assert.ok(!sidecarArgv('/s', resolveConfig({ timezone: '  ' }), '/d').includes('--timezone'), 'blank counts as unset');
  assert.deepEqual(sidecarArgv('/s', resolveConfig({ timezone: 'Europe/Berlin' }), '/d').slice(-2), ['--timezone', 'Europe/Berlin']);
  assert.throws(() => resolveConfig({ timezone: 8 }), /timezone must be a string/);
  assert.deepEqual(sidecarEnv(resolveConfig({}), { SOMNI_TIMEZONE: 'Asia/Tokyo' }), { SOMNI_TIMEZONE: undefined });
  assert.equal(dataDirOf(resolveConfig({ dataDir: '/x' }), {}), '/x');
});
