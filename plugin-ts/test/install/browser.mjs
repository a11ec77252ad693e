#!/usr/bin/env node
// The browser test: the Memory tab of the INSTALLED dsh-somni in the real DSH web client, driven in
// headless Chromium. The packages of dist/ are published to a throwaway verdaccio (no uplinks) and
// installed with `dsh plugin --profile web add dsh-somni` on a fresh DSH_HOME; the model is a
// recording fake; memories are files under the data dir. A turn raises a hint; the tab shows it with
// its reason; search finds an entry; an edit lands on disk and the next recall returns the new text;
// an edit racing a change on disk shows both versions and keeps the user's; forget archives; a dream
// started from the tab runs and is listed. A team pool (the project's .somni folder, mounted by the
// plugin's `teams` config) shows in Browse with its origin, read-only; the model proposes shares and the
// Team view approves one with edits, shows a refused approval's sentence, and rejects one. Screenshots of each view go to .cache/screenshots/ (gitignored:
// a test run leaves the checkout as it found it); `make screenshots` writes the committed docs/screenshots/.
// Also, at the /api level (what curl sees): a path out of the data dir and an oversized body are
// refused with clear errors.
// Env: SOMNI_VERDACCIO (verdaccio executable), SOMNI_DIST_DIR (default dist/), SOMNI_CHROMIUM
// (default /usr/bin/chromium), BROWSER_KEEP=1 keeps the temp dir, SOMNI_SCREENSHOTS (default .cache/screenshots).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { startFakeModel, toolNames } from '../e2e/fake-model.mjs';
import { checkRunner, expect, fakeModelRows, lastToolResult, listFiles, sleep, waitFor } from '../e2e/harness.mjs';
import { startDshWeb } from '../e2e/web.mjs';
import { runCommand as run, startRegistry, tail, userEnv } from './registry.mjs';

const PLUGIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const REPO = resolve(PLUGIN_DIR, '..');
const DIST = resolve(process.env.SOMNI_DIST_DIR || join(REPO, 'dist'));
const VERDACCIO = process.env.SOMNI_VERDACCIO;
const CHROMIUM = process.env.SOMNI_CHROMIUM || '/usr/bin/chromium';
const SHOTS = resolve(process.env.SOMNI_SCREENSHOTS || join(REPO, '.cache/screenshots'));
const { results, check } = checkRunner();

const root = realpathSync(mkdtempSync(join(tmpdir(), 'somni-browser-')));
const dir = (...p) => {
  const d = join(root, ...p);
  mkdirSync(d, { recursive: true });
  return d;
};
console.log(`browser: dist ${DIST}\n         temp ${root}`);

// --- the registry and the install, as a user gets them (registry.mjs, shared with the install test)
const home = dir('user-home');
const dshHome = join(home, '.dsh');
const work = dir('user-home', 'projects', 'app');
const dataDir = join(dshHome, 'somni');
/** @type {Awaited<ReturnType<typeof startRegistry>> | undefined} */
let registry;
let env = userEnv(home, dshHome, '');

await check('dist published to a local verdaccio and `dsh plugin --profile web add dsh-somni` installs it', async () => {
  expect(VERDACCIO && existsSync(VERDACCIO), `SOMNI_VERDACCIO=${VERDACCIO} is not an executable (scripts/dist/setup-registry.sh installs it)`);
  const tgzs = existsSync(DIST) ? readdirSync(DIST).filter((f) => /^dsh-somni.*\.tgz$/.test(f)) : [];
  expect(tgzs.some((f) => /^dsh-somni-\d/.test(f)), `no dsh-somni-<version>.tgz in ${DIST}: run make dist`);
  registry = await startRegistry(VERDACCIO, dir('registry'));
  const REG = registry.url;
  env = userEnv(home, dshHome, REG);
  const pubHome = registry.publisherHome;
  for (const f of tgzs) {
    const r = await run('npm', ['publish', join(DIST, f), '--registry', REG], { env: { ...env, HOME: pubHome }, cwd: pubHome });
    expect(r.code === 0, `npm publish ${f}: ${tail(r.stderr)}`);
  }
  writeFileSync(join(home, '.npmrc'), `registry=${REG}\n`);
  const r = await run('dsh', ['plugin', '--profile', 'web', 'add', 'dsh-somni'], { cwd: work, env });
  expect(r.code === 0, `dsh plugin add: exit ${r.code}: ${tail(r.stderr + r.stdout)}`);
  const pkg = JSON.parse(readFileSync(join(dshHome, 'profiles/web/node_modules/dsh-somni/package.json'), 'utf8'));
  expect(pkg.exports?.['./client'] && pkg.dsh?.client?.platform === 'web', `the installed package declares no web client: ${JSON.stringify(pkg.exports)}`);
  expect(existsSync(join(dshHome, 'profiles/web/node_modules/dsh-somni/lib/client.js')), 'lib/client.js is not in the installed package');
});

// --- memories the user already has, and the workspace a turn touches
const KNOW = join(dataDir, 'memory', 'knowledge');
// With the lifecycle numbers a dream writes (score, stability, dates), so the tab has a strength to draw.
const memory = (name, description, body, extra = '') => {
  mkdirSync(join(KNOW, name), { recursive: true });
  writeFileSync(join(KNOW, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\ntype: fact\nstability: 1\nscore: 0.8\ncreated: 2026-10-01\nlast_used: 2026-11-20\nlast_decay: 2026-11-25\n${extra}---\n${body}\n`);
};
memory('staging-postgres', 'Staging Postgres host and port', 'Staging Postgres: host `pg-stage-7`, port 6543.');
memory('coffee-pref', 'How the user takes coffee', 'The user takes coffee with oat milk, no sugar.', 'tags: [drinks, preferences]\n');
// A hand-edited file with markup in it: the tab must show it as text.
memory('html-note', 'A note with markup in it', 'Markup: <img src=x onerror="window.__somniPwned=1"> <script>window.__somniPwned=2</script> and [a link](javascript:window.__somniPwned=3).');
mkdirSync(join(work, 'docs'), { recursive: true });
writeFileSync(join(work, 'docs/staging-postgres-notes.md'), 'Connection notes.\n');
// The project's team pool: its own repository's .somni folder, with one entry a teammate shared.
const POOL = join(work, '.somni');
mkdirSync(join(POOL, 'knowledge', 'release-checklist'), { recursive: true });
writeFileSync(join(POOL, 'knowledge', 'release-checklist', 'SKILL.md'), '---\nname: release-checklist\ndescription: The steps of cutting a release\ntype: procedure\ncreated: 2026-11-02\nshared_by: Alice\nshared: 2026-11-02\n---\nBefore a release: run `make check`, bump VERSION, then tag vX.Y.Z and push the tag.\n');
const TEAM_ENTRY = 'team:backend/knowledge/release-checklist/SKILL.md';
const PG = 'memory/knowledge/staging-postgres/SKILL.md';
const COFFEE = 'memory/knowledge/coffee-pref/SKILL.md';
const HTML_NOTE = 'memory/knowledge/html-note/SKILL.md';

// --- the model: agent turns follow `script`; the dreamer writes one memory and its diary
const DIARY = '---\ntrigger: tab\n---\n\n## Created\n- `deploy-window` (fact): deploys run Tuesdays and Thursdays after 14:00, from this session.\n';
let script = [];
let dreamSteps = 0;
/** While set, the dreamer's model answers this late (a dream long enough to cancel). */
let dreamDelayMs = 0;
const model = await startFakeModel((req) => {
  if (toolNames(req).includes('create_knowledge')) {
    if (dreamDelayMs) return { delayMs: dreamDelayMs, content: 'Dream complete.' };
    return dreamSteps++ === 0
      ? {
          toolCalls: [
            { name: 'create_knowledge', arguments: { name: 'deploy-window', entry_type: 'fact', description: 'When deploys may run', body: 'Deploys run Tuesdays and Thursdays after 14:00.' } },
            { name: 'create_knowledge', arguments: { name: 'release-train', entry_type: 'fact', description: 'How releases are cut', body: 'A release branch is cut every second Monday.' } },
            { name: 'write_dream_log', arguments: { content: DIARY } },
          ],
        }
      : { content: 'Dream complete.' };
  }
  const step = script.shift();
  return step ? step(req) : { content: 'Done.' };
});
const patch = join(root, 'model.patch.yml');
writeFileSync(patch, `${fakeModelRows(model.url)}- id: session-title-llm
  disabled: true
- id: dsh-somni
  config: {embed: {provider: hash}, dream: {enabled: false}, teams: {backend: ${JSON.stringify(POOL)}}}
`);
// The project is a git repository whose user is Ada: an approved share is hers (shared_by).
for (const args of [['init', '-q'], ['config', 'user.name', 'Ada']]) {
  const g = await run('git', args, { cwd: work, env });
  if (g.code !== 0) throw new Error(`git ${args.join(' ')}: ${tail(g.stderr)}`);
}

const web = await startDshWeb({ home: dshHome, patch, cwd: work, env: { ...env, HOME: home } });
console.log(`         web ${web.base}`);
const { sessionId } = await web.rpc('session.create', { cwd: work });
const hintOf = (req) => (req.messages ?? []).filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).find((t) => t.includes('【记忆提示】')) ?? '';

/** One user turn whose agent requests `steps` answer in order; resolves with the requests it made. */
async function turn(text, steps) {
  const reqs = [];
  script = steps.map((s) => (req) => (reqs.push(req), s(req)));
  const before = (await web.events(sessionId)).filter((e) => e.type === 'turn/end').length;
  await web.prompt(sessionId, text);
  await web.turnsEnded(sessionId, before + 1, 90_000);
  return reqs;
}

await check('a turn that reads the notes file gets a 【记忆提示】 hint naming staging-postgres', async () => {
  const reqs = await turn('Please read the staging notes for me.', [
    () => ({ toolCalls: [{ name: 'read', arguments: { file_path: join(work, 'docs/staging-postgres-notes.md') } }] }),
    () => ({ content: 'Read them.' }),
  ]);
  expect(reqs.length >= 2, `the model was asked ${reqs.length} times`);
  expect(hintOf(reqs[1]).includes('staging-postgres'), `no hint in the second request: ${JSON.stringify(reqs[1]?.messages?.slice(-3)).slice(0, 800)}`);
});

/** POSTs one Remote call the way the web client does; returns the RpcResult. */
async function api(method, args) {
  const res = await fetch(`${web.base}/api/somniMemory/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'client-request', rpcId: randomUUID(), method: `somniMemory/${method}`, payload: { args } }),
  });
  const body = await res.json().catch(() => ({}));
  return { status: res.status, result: body.result ?? body };
}
// --- the browser
mkdirSync(SHOTS, { recursive: true });
const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
process.on('exit', () => browser.process()?.kill('SIGKILL'));
const page = await browser.newPage();
await page.setViewport({ width: 1280, height: 860 });
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.message));
page.on('dialog', (d) => void d.accept());
const shot = (name) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
/** Clicks the last visible element whose own text is exactly `text`. */
async function clickText(text, selector = 'button,a,[role=button],[role=tab],div,span') {
  const ok = await page.evaluate((text, selector) => {
    const visible = [...document.querySelectorAll(selector)].filter((e) => e instanceof HTMLElement && e.offsetParent !== null);
    const exact = visible.filter((e) => e.textContent?.trim() === text);
    // A row whose label shares its element with other text (a sidebar title and its time): the innermost holder.
    const holders = visible.filter((e) => e.textContent?.includes(text) && ![...e.children].some((c) => c.textContent?.includes(text)));
    const el = exact[exact.length - 1] ?? holders[holders.length - 1];
    if (el instanceof HTMLElement) el.click();
    return Boolean(el);
  }, text, selector);
  expect(ok, `nothing to click reading "${text}"`);
}
const bodyText = () => page.evaluate(() => document.body.innerText);
async function waitText(what, re, ms = 20_000) {
  await waitFor(what, async () => re.test(await bodyText()), ms).catch(async () => expect(false, `${what}: not on the page; it reads: ${(await bodyText()).slice(0, 1200)}`));
}
const memTab = (sel) => `[data-testid="somni-memory"] ${sel}`;

await check('the web client boots with the plugin and a session shows the tabs Chat · Trajectory · Memory', async () => {
  await page.goto(web.base, { waitUntil: 'networkidle2' });
  await waitText('the first-run notice', /Continue/);
  await clickText('Continue');
  await clickText('Ungrouped');
  await waitText('the session in the sidebar', /Please read the staging notes/);
  await clickText('Please read the staging notes');
  await waitText('the session tabs', /Chat\s+Trajectory\s+Memory/);
  /** @type {string[]} */
  const asked = [];
  const count = (/** @type {import('puppeteer-core').HTTPRequest} */ req) => void (req.url().includes('/api/somniMemory/') && asked.push(req.url().replace(/.*\/api\/somniMemory\//, '')));
  page.on('request', count);
  const first = page.waitForResponse((r) => r.url().includes('/api/somniMemory/indexStatus'), { timeout: 15_000 });
  await clickText('Memory', '[role=tab],button,div,span');
  await page.waitForSelector(memTab('[data-testid="somni-session"]'), { timeout: 15_000 });
  expect(pageErrors.length === 0, `page errors: ${pageErrors.join(' | ')}`);
  // The index is idle at open: the index line asks once, shows nothing and does not poll.
  const ix = await (await first).json();
  expect(ix.result?.value?.pending === 0, `memory.indexStatus at open: ${JSON.stringify(ix)}`);
  await sleep(3500);
  page.off('request', count);
  const line = await page.$(memTab('[data-testid="somni-index-progress"]'));
  expect(!line, 'the index line shows while the index is idle');
  expect(asked.filter((a) => a === 'indexStatus').length === 1, `memory.indexStatus asked ${asked.filter((a) => a === 'indexStatus').length} times while idle: ${asked.join(' ')}`);
  expect(!asked.includes('health'), `the tab asked memory.health (doctor) at open: ${asked.join(' ')}`);
});

await check('This session: the hint is listed with its text, score and reason', async () => {
  await page.waitForSelector(memTab('[data-kind="hint"]'), { timeout: 15_000 }).catch(async () => {
    const r = await api('session', { sessionId });
    expect(false, `no hint card; somniMemory/session for ${sessionId} answers ${JSON.stringify(r.result).slice(0, 600)}`);
  });
  const card = await page.$eval(memTab('[data-kind="hint"]'), (e) => e.textContent ?? '');
  expect(card.includes('staging-postgres') && /why:/.test(card) && /score \d/.test(card), `the hint card reads: ${card.slice(0, 500)}`);
  expect(!/assoc\./.test(card) && /after a tool call|as the agent thought/.test(card), `the hint card names the method, not when it came: ${card.slice(0, 500)}`);
  // Linked to the turn it came in: the first turn, and what the user said there.
  expect(/turn 1: “Please read the staging notes/.test(card), `the hint card names no turn: ${card.slice(0, 500)}`);
  await shot('session');
});

await check('Browse & search: "postgres" finds staging-postgres with the hit\'s reason', async () => {
  await clickText('Browse');
  await page.waitForSelector(memTab('[data-testid="somni-browse"] input'));
  await page.type(memTab('[data-testid="somni-browse"] input'), 'postgres');
  await clickText('Search');
  await page.waitForSelector(memTab(`[data-path="${PG}"] [data-testid="somni-hit"]`), { timeout: 15_000 });
  const why = await page.$eval(memTab(`[data-path="${PG}"] [data-testid="somni-hit"]`), (e) => e.textContent ?? '');
  expect(/why:.*postgres/i.test(why), `the hit reads: ${why}`);
  await shot('browse');
});

await check('Browse: a search that matches nothing says so, and shows no entries', async () => {
  await clearInput(memTab('[data-testid="somni-browse"] input'));
  await page.type(memTab('[data-testid="somni-browse"] input'), 'quantum chromodynamics lattice');
  await clickText('Search');
  await page.waitForSelector(memTab('[data-testid="somni-no-match"]'), { timeout: 15_000 });
  const said = await page.$eval(memTab('[data-testid="somni-no-match"]'), (e) => e.textContent ?? '');
  expect(said === 'No memory matches “quantum chromodynamics lattice”.', `it says: ${said}`);
  const cards = await page.$$(memTab('[data-testid="somni-browse"] [data-path]'));
  expect(cards.length === 0, `${cards.length} entries are listed for a search that matches nothing`);
});

await check('Browse: a day without a time is shown as that day, never as midnight', async () => {
  await clearInput(memTab('[data-testid="somni-browse"] input'));
  await clickText('Search');
  await page.waitForSelector(memTab(`[data-path="${PG}"]`), { timeout: 15_000 });
  const row = await page.$eval(memTab(`[data-path="${PG}"]`), (e) => e.textContent ?? '');
  // staging-postgres was last used on 2026-11-20 (its front-matter holds the day alone).
  expect(row.includes('Nov 20, 2026') && !/12:00:00|AM|PM/.test(row), `the row reads: ${row}`);
});

await check('New memory: written by hand in Browse, it is a file on disk, opens, and recall finds it', async () => {
  await clickText('Browse');
  await page.click(memTab('[data-testid="somni-new-open"]'));
  await page.waitForSelector(memTab('[data-testid="somni-new"]'));
  await page.type(memTab('[data-testid="somni-new"] input[aria-label^="Name"]'), 'office-wifi');
  await page.type(memTab('[data-testid="somni-new"] input[aria-label^="One sentence"]'), 'The office Wi-Fi network and where its password is kept');
  await page.type(memTab('[data-testid="somni-new"] textarea'), 'The office Wi-Fi is **corp-5g**; its password is on the card at reception.');
  await shot('new-memory');
  await page.click(memTab('[data-testid="somni-new"] button[type="submit"]'));
  await page.waitForSelector(memTab('[data-testid="somni-body"]'), { timeout: 15_000 });
  const body = await page.$eval(memTab('[data-testid="somni-body"]'), (e) => e.innerHTML);
  expect(/<strong>corp-5g<\/strong>/.test(body), `the new entry's body: ${body.slice(0, 300)}`);
  const file = join(KNOW, 'office-wifi', 'SKILL.md');
  expect(existsSync(file) && /name: office-wifi\n/.test(readFileSync(file, 'utf8')), `${file} is not on disk as written`);
  const r = await waitFor('recall of the new memory', async () => {
    const res = await api('list', { query: 'office wifi' });
    return res.result.value?.entries?.some((e) => e.path === 'memory/knowledge/office-wifi/SKILL.md') ? res : undefined;
  }, 15_000).catch(() => undefined);
  expect(r, 'search does not find the new memory');
  await clickText('← Back');
});

/** Empties one of Browse's inputs (React reads the input event). */
async function clearInput(selector) {
  await page.$eval(selector, (el) => {
    const input = /** @type {HTMLInputElement} */ (el);
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input, '');
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}
const TAG_INPUT = memTab('[data-testid="somni-browse"] input[aria-label="Tag"]');

await check('Browse: the tag filter lists only the entries with that tag', async () => {
  await clearInput(memTab('[data-testid="somni-browse"] input'));
  await page.type(TAG_INPUT, 'drinks');
  await clickText('Search');
  await waitFor('the filtered list', async () => {
    const paths = await page.$$eval(memTab('[data-testid="somni-browse"] [data-path]'), (els) => els.map((e) => e.getAttribute('data-path')));
    return paths.length === 1 && paths[0] === COFFEE;
  }, 15_000).catch(async () => {
    const paths = await page.$$eval(memTab('[data-testid="somni-browse"] [data-path]'), (els) => els.map((e) => e.getAttribute('data-path')));
    expect(false, `tag "drinks" lists ${JSON.stringify(paths)}, want only ${COFFEE}`);
  });
  await clearInput(TAG_INPUT);
  await clickText('Search');
  await page.waitForSelector(memTab(`[data-path="${PG}"]`), { timeout: 15_000 });
});

/** Each DSH theme variable (`--dsw-NAME`) as the browser resolves it to a colour, through a probe in the page. */
async function dshColours(names) {
  return page.evaluate((names) => {
    const probe = document.createElement('div');
    document.body.appendChild(probe);
    /** @type {Record<string, string>} */
    const out = {};
    for (const n of names) {
      probe.style.color = `var(--dsw-${n})`;
      out[n] = getComputedStyle(probe).color;
    }
    probe.remove();
    return out;
  }, names);
}
/** Computed style properties of the first element `selector` names. */
const styleOf = (selector, props) => page.$eval(selector, (e, props) => {
  const cs = getComputedStyle(e);
  return Object.fromEntries(props.map((p) => [p, cs.getPropertyValue(p)]));
}, props);
/** DSH's font stack (--dsw-font-family) as the browser resolves it. */
const dshFont = () => page.evaluate(() => {
  const probe = document.createElement('div');
  probe.style.fontFamily = 'var(--dsw-font-family)';
  document.body.appendChild(probe);
  const f = getComputedStyle(probe).fontFamily;
  probe.remove();
  return f;
});
/** The tab's controls whose face is the browser's own (appearance not none, a native date or checkbox), or not in DSH's font. */
const defaultControls = (font) => page.$$eval(memTab(':is(button,input,select,textarea)'), (els, font) => els
  .filter((e) => getComputedStyle(e).appearance !== 'none' || /^(date|datetime-local|checkbox|radio|search|file)$/.test(e.getAttribute('type') ?? '') || getComputedStyle(e).fontFamily !== font)
  .map((e) => `${e.tagName.toLowerCase()}[${e.getAttribute('type') ?? ''}] "${(e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 30)}" appearance ${getComputedStyle(e).appearance}`), font);
const TRANSPARENT = 'rgba(0, 0, 0, 0)';
const DSH = ['alias-label-primary', 'alias-label-tertiary', 'alias-bg-layer-1', 'alias-border-l2', 'alias-border-l3', 'alias-button-primary-fill', 'alias-label-primary-foreground', 'alias-button-ghost-active-fill'];

await check('Look: the tab is drawn with DSH Web\'s own theme — its font, colours, buttons, inputs, pills, cards — and no control keeps the browser\'s face', async () => {
  await clickText('Browse');
  await page.waitForSelector(memTab(`[data-path="${PG}"]`), { timeout: 15_000 });
  const undefinedVars = await page.evaluate(() => ['--dsw-font-family', '--dsw-alias-label-primary', '--dsw-alias-border-l2', '--dsw-alias-button-primary-fill'].filter((v) => !getComputedStyle(document.body).getPropertyValue(v).trim()));
  expect(undefinedVars.length === 0, `DSH Web defines no ${undefinedVars.join(', ')}: nothing to compare the tab with`);
  const c = await dshColours(DSH);
  const font = await dshFont();
  expect(/PingFang SC/.test(font), `DSH's font stack reads ${font}`);
  // DSH's font and text colour; no background of its own (the conversation view's surface shows through).
  const root = await styleOf(memTab(''), ['font-family', 'color', 'background-color']);
  expect(root['font-family'] === font && root.color === c['alias-label-primary'] && root['background-color'] === TRANSPARENT, `the tab's root ${JSON.stringify(root)}; DSH ${JSON.stringify({ font, color: c['alias-label-primary'] })}`);
  // DSH's small outline button, its primary button, its input, its active pill, its card.
  const btn = await styleOf(memTab('[data-testid="somni-new-open"]'), ['border-radius', 'height', 'border-top-color', 'color']);
  expect(btn['border-radius'] === '14px' && btn.height === '28px' && btn['border-top-color'] === c['alias-border-l2'] && btn.color === c['alias-label-primary'], `New memory button ${JSON.stringify(btn)}`);
  const primary = await styleOf(memTab('[data-testid="somni-browse"] button[type="submit"]'), ['background-color', 'color', 'border-radius']);
  expect(primary['background-color'] === c['alias-button-primary-fill'] && primary.color === c['alias-label-primary-foreground'] && primary['border-radius'] === '14px', `Search button ${JSON.stringify(primary)}`);
  // Unfocused (a focused input takes DSH's focus colour, brand-primary).
  await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  const input = await styleOf(TAG_INPUT, ['border-radius', 'height', 'border-top-color']);
  expect(input['border-radius'] === '8px' && input.height === '32px' && input['border-top-color'] === c['alias-border-l2'], `Tag input ${JSON.stringify(input)}`);
  const tab = await styleOf(memTab('.somni-nav [aria-selected="true"]'), ['background-color', 'border-radius']);
  const pill = await styleOf(memTab('[data-testid="somni-kinds"] [aria-pressed="true"]'), ['background-color', 'border-radius']);
  expect(tab['background-color'] === c['alias-button-ghost-active-fill'] && pill['background-color'] === c['alias-button-ghost-active-fill'] && pill['border-radius'] === '12px', `the selected view ${JSON.stringify(tab)}, the pressed pill ${JSON.stringify(pill)}`);
  const card = await styleOf(memTab(`[data-path="${PG}"]`), ['border-radius', 'border-top-color']);
  const when = await page.$eval(memTab(`[data-path="${PG}"] .somni-muted`), (e) => getComputedStyle(e).color);
  expect(card['border-radius'] === '12px' && card['border-top-color'] === c['alias-border-l2'] && when === c['alias-label-tertiary'], `a card ${JSON.stringify(card)}, its date ${when}`);
  // Every control, the New memory form's type select included: DSH's face and font, never the browser's.
  await page.click(memTab('[data-testid="somni-new-open"]'));
  await page.waitForSelector(memTab('[data-testid="somni-new"] select'));
  const select = await styleOf(memTab('[data-testid="somni-new"] select'), ['appearance', 'background-image', 'border-radius']);
  expect(select.appearance === 'none' && /svg/.test(select['background-image']) && select['border-radius'] === '8px', `the type select ${JSON.stringify(select)}`);
  const browserFaced = await defaultControls(font);
  expect(browserFaced.length === 0, `controls with the browser's face: ${browserFaced.join('; ')}`);
  await clickIn(memTab('[data-testid="somni-new"]'), 'Cancel');
  // Every colour of the tab's stylesheet is a DSH variable (a fallback after one is only for outside the host).
  const css = await page.$eval('style[data-plugin-css="dsh-somni"]', (e) => e.textContent ?? '');
  let bare = css;
  for (let prev = ''; prev !== bare;) [prev, bare] = [bare, bare.replace(/var\(--[\w-]+(?:,[^()]*)?\)/g, 'V')];
  const literal = bare.match(/#[0-9a-f]{3,8}\b|rgba?\(|hsla?\(|:\s*(?:white|black|gr[ae]y)\b/gi) ?? [];
  expect(literal.length === 0, `colours in the tab's CSS that are not DSH's variables: ${literal.join(' ')}`);
});

await check('Browse: the kind, time span and archive filters are DSH pills that apply at once; a custom span takes two days', async () => {
  const listed = () => page.$$eval(memTab('[data-testid="somni-browse"] [data-path]'), (els) => els.map((e) => e.getAttribute('data-path')));
  await page.click(memTab('[data-testid="somni-kinds"] [data-kind="knowledge"]'));
  await waitFor('knowledge only', async () => {
    const kinds = await page.$$eval(memTab('[data-testid="somni-browse"] [data-path] .somni-badge:first-of-type'), (els) => els.map((e) => e.textContent ?? ''));
    return kinds.length > 0 && kinds.every((k) => k.startsWith('knowledge'));
  }, 15_000);
  await page.click(memTab('[data-testid="somni-kinds"] [data-kind="any"]'));
  // A knowledge entry's day is the day it was made: 2026-10-01 for the fixtures, today for office-wifi.
  await page.click(memTab('[data-testid="somni-spans"] [data-span="custom"]'));
  await page.waitForSelector(memTab('[data-testid="somni-custom-span"]'));
  await page.type(memTab('[data-testid="somni-custom-span"] input[aria-label="Since"]'), '2026-09-25');
  await page.type(memTab('[data-testid="somni-custom-span"] input[aria-label="Until"]'), '2026-10');
  await clickText('Search');
  await waitText('the day format', /Write a day as YYYY-MM-DD/);
  const invalid = await page.$eval(memTab('[data-testid="somni-custom-span"] input[aria-label="Until"]'), (e) => e.getAttribute('aria-invalid'));
  expect(invalid === 'true', `a half-written day is not marked: aria-invalid=${invalid}`);
  await setInput(memTab('[data-testid="somni-custom-span"] input[aria-label="Until"]'), '2026-10-05');
  await clickText('Search');
  await waitFor('the span\'s entries', async () => {
    const paths = await listed();
    return paths.includes(PG) && !paths.includes('memory/knowledge/office-wifi/SKILL.md');
  }, 15_000).catch(async () => expect(false, `2026-09-25 to 2026-10-05 lists ${JSON.stringify(await listed())}`));
  await shot('browse-filters');
  await page.click(memTab('[data-testid="somni-spans"] [data-span="any"]'));
  await waitFor('every entry again', async () => (await listed()).includes('memory/knowledge/office-wifi/SKILL.md'), 15_000);
  // The archive, as a toggle: nothing archived yet, said in DSH's empty state.
  await page.click(memTab('[data-testid="somni-archived"]'));
  await page.waitForSelector(memTab('[data-testid="somni-browse"] .somni-empty'), { timeout: 15_000 });
  const empty = await page.$eval(memTab('[data-testid="somni-browse"] .somni-empty'), (e) => ({ text: e.textContent ?? '', border: getComputedStyle(e).borderTopStyle }));
  expect(empty.text.includes('Nothing in the archive.') && empty.border === 'dashed', `the empty archive reads ${JSON.stringify(empty)}`);
  await page.click(memTab('[data-testid="somni-archived"]'));
  await page.waitForSelector(memTab(`[data-path="${PG}"]`), { timeout: 15_000 });
});

/** Opens an entry from Browse (unfiltered list). */
async function openEntry(path) {
  await clickText('Browse');
  await page.waitForSelector(memTab(`[data-path="${path}"] .somni-link`), { timeout: 15_000 });
  await page.click(memTab(`[data-path="${path}"] .somni-link`));
  await page.waitForSelector(memTab('[data-testid="somni-body"]'), { timeout: 15_000 });
}
/** Replaces the editor's text (React reads the input event). */
async function setEditor(selector, text) {
  await page.$eval(selector, (el, text) => {
    const ta = /** @type {HTMLTextAreaElement} */ (el);
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set?.call(ta, text);
    ta.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
}

await check('Entry: the body is rendered Markdown with its front-matter', async () => {
  await openEntry(PG);
  const html = await page.$eval(memTab('[data-testid="somni-body"]'), (e) => e.innerHTML);
  expect(/<code>pg-stage-7<\/code>/.test(html), `body: ${html.slice(0, 300)}`);
  await waitText('its description', /Staging Postgres host and port/);
  // The raw header keys wait under Details, folded.
  const open = await page.$eval(memTab('[data-testid="somni-details"]'), (e) => /** @type {HTMLDetailsElement} */ (e).open);
  expect(open === false, 'the front-matter keys are unfolded on the entry\'s face');
  const keys = await page.$eval(memTab('[data-testid="somni-details"]'), (e) => e.textContent ?? '');
  expect(/stability/.test(keys) && /last_decay/.test(keys), `the details hold: ${keys}`);
  // Its strength: the past from the file, then the lifecycle's decay ahead, on a time axis.
  const parts = await page.$$eval(memTab('.somni-spark [data-part]'), (els) => els.map((e) => e.getAttribute('data-part')));
  expect(parts.includes('past') && parts.includes('projected') && parts.includes('today'), `the strength line has parts ${JSON.stringify(parts)}`);
  await shot('entry');
});

await check('Edit: the file on disk changes and the next recall returns the new text', async () => {
  await clickText('Edit');
  await page.waitForSelector(memTab('[data-testid="somni-editor"]'));
  const raw = await page.$eval(memTab('[data-testid="somni-editor"]'), (e) => /** @type {HTMLTextAreaElement} */ (e).value);
  await setEditor(memTab('[data-testid="somni-editor"]'), raw.replace('port 6543', 'port 6544'));
  await clickText('Save');
  await waitText('saved', /Saved/);
  const disk = readFileSync(join(dataDir, PG), 'utf8');
  expect(disk.includes('port 6544') && !disk.includes('6543'), `on disk: ${disk}`);
  const reqs = await turn('What is the staging postgres port?', [
    () => ({ toolCalls: [{ name: 'recall_memories', arguments: { query: 'staging postgres port' } }] }),
    () => ({ content: 'It is in memory.' }),
  ]);
  const out = lastToolResult(reqs[1] ?? {});
  expect(out.includes('6544') && !out.includes('6543'), `recall returned: ${out.slice(0, 600)}`);
});

await check('Edit while the file changes on disk: both versions are shown, nothing is lost, "Keep mine" writes the user\'s', async () => {
  await openEntry(PG);
  await clickText('Edit');
  await page.waitForSelector(memTab('[data-testid="somni-editor"]'));
  const raw = await page.$eval(memTab('[data-testid="somni-editor"]'), (e) => /** @type {HTMLTextAreaElement} */ (e).value);
  const mine = raw.replace('port 6544', 'port 6545');
  await setEditor(memTab('[data-testid="somni-editor"]'), mine);
  // Meanwhile someone else (the dreamer, another editor) changes the file.
  const disk = readFileSync(join(dataDir, PG), 'utf8');
  writeFileSync(join(dataDir, PG), disk.replace(/\n*$/, '\nAlso reachable as pg-stage-7.internal.\n'));
  await clickText('Save');
  await page.waitForSelector(memTab('[data-testid="somni-conflict"]'), { timeout: 15_000 });
  const shownDisk = await page.$eval(memTab('[data-testid="somni-disk"]'), (e) => e.textContent ?? '');
  const shownMine = await page.$eval(memTab('[data-testid="somni-mine"]'), (e) => /** @type {HTMLTextAreaElement} */ (e).value);
  expect(shownDisk.includes('pg-stage-7.internal'), `the disk side reads: ${shownDisk}`);
  expect(shownMine.includes('port 6545'), `the user's side reads: ${shownMine}`);
  expect(readFileSync(join(dataDir, PG), 'utf8').includes('pg-stage-7.internal'), 'the other change was overwritten before the user chose');
  await shot('conflict');
  await clickText('Keep mine');
  await waitText('saved after the conflict', /Saved/);
  const now = readFileSync(join(dataDir, PG), 'utf8');
  expect(now.includes('port 6545'), `on disk after "Keep mine": ${now}`);
});

await check('Entry: raw HTML and script links in a memory file are shown as text, never run', async () => {
  await openEntry(HTML_NOTE);
  const found = await page.$eval(memTab('[data-testid="somni-body"]'), (e) => ({
    tags: e.querySelectorAll('img,script,iframe,[onerror]').length,
    hrefs: [...e.querySelectorAll('a')].map((a) => a.getAttribute('href')),
    text: e.textContent ?? '',
  }));
  const pwned = await page.evaluate(() => /** @type {any} */ (window).__somniPwned);
  expect(found.tags === 0 && pwned === undefined, `markup became elements: ${JSON.stringify(found)}, __somniPwned=${pwned}`);
  expect(found.text.includes('<img src=x') && found.hrefs.every((h) => !/^javascript:/i.test(h ?? '')), `the body reads: ${JSON.stringify(found)}`);
});

await check('Pin / Unpin: the entry is pinned on disk and the button says Unpin', async () => {
  await openEntry(PG);
  await clickText('Pin');
  await waitText('the Unpin button', /Unpin/);
  const r = await api('read', { path: PG });
  expect(r.result.ok && r.result.value.pinned === true, `read after Pin: ${JSON.stringify(r.result).slice(0, 300)}`);
  await clickText('Unpin');
  await waitFor('unpinned', async () => (await api('read', { path: PG })).result.value?.pinned === false, 10_000);
});

await check('Forget: the entry moves to the archive, and the tab shows it there without an error', async () => {
  await openEntry(COFFEE);
  await clickText('Forget');
  await waitText('the archive path', /Moved to the archive: \S+/);
  // The view follows the entry to the archive: its text, the Archived badge, no error beside the success.
  await page.waitForSelector(memTab('[data-testid="somni-body"]'), { timeout: 15_000 });
  const shown = await page.$eval(memTab('[data-testid="somni-entry"]'), (e) => e.textContent ?? '');
  expect(shown.includes('oat milk') && shown.includes('Archived') && !shown.includes(COFFEE), `the entry view reads: ${shown.slice(0, 600)}`);
  const errors = await page.$$eval(memTab('.somni-error'), (els) => els.map((e) => e.textContent));
  expect(errors.length === 0, `errors beside the success: ${JSON.stringify(errors)}`);
  const buttons = await page.$$eval(memTab('[data-testid="somni-entry"] button'), (els) => els.map((e) => e.textContent));
  expect(!buttons.includes('Edit') && !buttons.includes('Forget'), `an archived entry still offers ${JSON.stringify(buttons)}`);
  expect(!existsSync(join(dataDir, COFFEE)), `${COFFEE} is still there`);
  const archived = listFiles(dataDir).filter((f) => f.includes('coffee-pref') && f !== COFFEE);
  expect(archived.length > 0, `no archived copy of coffee-pref under ${dataDir}`);
});


await check('Restore: the archived entry goes back where it was, and the tab shows it there', async () => {
  await page.click(memTab('[data-testid="somni-restore"]'));
  await waitText('the restored path', new RegExp(`Restored: ${COFFEE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  expect(existsSync(join(dataDir, COFFEE)), `${COFFEE} is not back on disk`);
  const leftovers = listFiles(dataDir).filter((f) => f.includes('coffee-pref') && f !== COFFEE && !f.startsWith('index'));
  expect(leftovers.length === 0, `copies left in the archive: ${leftovers.join(', ')}`);
  const entryButtons = () => page.$$eval(memTab('[data-testid="somni-entry"] button'), (els) => els.map((e) => e.textContent ?? ''));
  await waitFor('the restored entry, editable', async () => {
    const b = await entryButtons();
    return b.includes('Edit') && b.includes('Forget');
  }, 15_000).catch(async () => expect(false, `the restored entry offers ${JSON.stringify(await entryButtons())}`));
  const errors = await page.$$eval(memTab('.somni-error'), (els) => els.map((e) => e.textContent));
  expect(errors.length === 0, `errors beside the success: ${JSON.stringify(errors)}`);
});

/** Lets the browser save downloads, into a new folder of the temp dir named `name`, which it returns. */
async function saveDownloadsIn(name) {
  const downloads = dir(name);
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
  return downloads;
}

await check('Download: the entry is saved as its file, byte for byte', async () => {
  const downloads = await saveDownloadsIn('downloads');
  await page.click(memTab('[data-testid="somni-download"]'));
  const saved = join(downloads, 'coffee-pref.md');
  await waitFor('the downloaded file', () => existsSync(saved) && readFileSync(saved, 'utf8').length > 0, 15_000);
  const onDisk = readFileSync(join(dataDir, COFFEE), 'utf8');
  expect(readFileSync(saved, 'utf8') === onDisk, `the download differs from ${COFFEE}:\n${readFileSync(saved, 'utf8').slice(0, 400)}`);
});

// --- the team pool: its entry in Browse (read-only), the model's proposals in the Team view
const PROPOSALS = join(dataDir, 'memory', 'proposals', 'backend');
const teamCard = (id) => memTab(`[data-testid="somni-proposal"][data-id="${id}"]`);
/** Clicks the button reading `text` inside the element `selector` names. */
async function clickIn(selector, text) {
  await page.waitForSelector(selector, { timeout: 15_000 });
  const ok = await page.$eval(selector, (el, text) => {
    const b = [...el.querySelectorAll('button')].find((x) => x.textContent?.trim() === text);
    if (b instanceof HTMLElement) b.click();
    return Boolean(b);
  }, text);
  expect(ok, `no "${text}" button in ${selector}`);
}
/** Replaces an input's text (React reads the input event). */
async function setInput(selector, text) {
  await page.$eval(selector, (el, text) => {
    const input = /** @type {HTMLInputElement} */ (el);
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input, text);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
}
const dialogs = [];
page.on('dialog', (d) => dialogs.push(d.message()));

await check('Browse: a search finds the team pool\'s entry, labelled with its team and who shared it; personal entries carry no label', async () => {
  await clickText('Browse');
  await page.waitForSelector(memTab('[data-testid="somni-browse"] input'));
  await clearInput(memTab('[data-testid="somni-browse"] input'));
  await page.type(memTab('[data-testid="somni-browse"] input'), 'release checklist');
  await clickText('Search');
  // The search's answer, not the listing shown before it (which holds the pool's entry too, without a reason).
  await page.waitForSelector(memTab(`[data-path="${TEAM_ENTRY}"] [data-testid="somni-hit"]`), { timeout: 15_000 }).catch(async () => {
    const r = await api('list', { query: 'release checklist' });
    expect(false, `no team entry with an origin in Browse; somniMemory/list answers ${JSON.stringify(r.result).slice(0, 800)}`);
  });
  const label = await page.$eval(memTab(`[data-path="${TEAM_ENTRY}"] [data-testid="somni-origin"]`), (e) => e.textContent ?? '');
  expect(label === 'team backend · shared by Alice', `the team entry's label reads: ${label}`);
  const hit = await page.$eval(memTab(`[data-path="${TEAM_ENTRY}"]`), (e) => e.textContent ?? '');
  expect(/why:/.test(hit) && hit.includes('The steps of cutting a release'), `the team entry's card reads: ${hit}`);
  // The listing without a query holds the pool's entries too, among the personal ones, which carry no label.
  await clearInput(memTab('[data-testid="somni-browse"] input'));
  await clickText('Search');
  await page.waitForSelector(memTab(`[data-path="${PG}"]`), { timeout: 15_000 });
  const labelled = await page.$$eval(memTab('[data-testid="somni-browse"] [data-path]'), (els) => els.filter((e) => e.querySelector('[data-testid="somni-origin"]')).map((e) => e.getAttribute('data-path')));
  expect(JSON.stringify(labelled) === JSON.stringify([TEAM_ENTRY]), `labelled entries in the listing: ${JSON.stringify(labelled)}`);
  await shot('browse-team');
  await page.type(memTab('[data-testid="somni-browse"] input'), 'release checklist');
  await clickText('Search');
  await page.waitForSelector(memTab(`[data-path="${TEAM_ENTRY}"] [data-testid="somni-hit"]`), { timeout: 15_000 });
});

await check('Browse: the team entry opens read-only, saying where it lives and that changes go through the team\'s repository', async () => {
  await page.click(memTab(`[data-path="${TEAM_ENTRY}"] .somni-link`));
  await page.waitForSelector(memTab('[data-testid="somni-body"]'), { timeout: 15_000 });
  const note = await page.$eval(memTab('[data-testid="somni-readonly"]'), (e) => e.textContent ?? '').catch(() => '');
  expect(note.includes('team backend') && note.includes('knowledge/release-checklist/SKILL.md') && /changes go through the team’s repository/.test(note), `the read-only note reads: ${note}`);
  const body = await page.$eval(memTab('[data-testid="somni-body"]'), (e) => e.textContent ?? '');
  expect(body.includes('bump VERSION'), `the body reads: ${body}`);
  const buttons = await page.$$eval(memTab('[data-testid="somni-entry"] button'), (els) => els.map((e) => e.textContent?.trim()));
  expect(!['Edit', 'Pin', 'Unpin', 'Forget', 'Restore'].some((b) => buttons.includes(b)), `a team entry offers ${JSON.stringify(buttons)}`);
  const errors = await page.$$eval(memTab('.somni-error'), (els) => els.map((e) => e.textContent));
  expect(errors.length === 0, `errors on the team entry: ${JSON.stringify(errors)}`);
  await shot('entry-team');
  // Nor can the API change it.
  const before = readFileSync(join(POOL, 'knowledge', 'release-checklist', 'SKILL.md'), 'utf8');
  const r = await api('read', { path: TEAM_ENTRY });
  const w = await api('write', { path: TEAM_ENTRY, raw: `${r.result.value?.raw}\nmore\n`, version: r.result.value?.version });
  const f = await api('forget', { path: TEAM_ENTRY });
  expect(w.result.ok === false && /read-only/.test(w.result.error?.message ?? '') && f.result.ok === false, `write/forget of a team entry: ${JSON.stringify([w, f]).slice(0, 500)}`);
  expect(readFileSync(join(POOL, 'knowledge', 'release-checklist', 'SKILL.md'), 'utf8') === before, 'the pool file changed');
  await clickText('← Back');
});

await check('Team, before any share: DSH\'s empty state says no share waits and how one comes', async () => {
  await clickText('Team');
  await page.waitForSelector(memTab('[data-testid="somni-no-proposals"]'), { timeout: 15_000 });
  const c = await dshColours(DSH);
  const empty = await page.$eval(memTab('[data-testid="somni-no-proposals"]'), (e) => {
    const cs = getComputedStyle(e);
    return { text: e.textContent ?? '', border: cs.borderTopStyle, borderColour: cs.borderTopColor, colour: cs.color, radius: cs.borderTopLeftRadius, align: cs.textAlign };
  });
  expect(empty.text.startsWith('No share waits for your approval.') && /share_memory/.test(empty.text), `the empty state reads: ${empty.text}`);
  expect(empty.border === 'dashed' && empty.borderColour === c['alias-border-l3'] && empty.colour === c['alias-label-tertiary'] && empty.radius === '12px' && empty.align === 'center', `the empty state is drawn ${JSON.stringify(empty)}`);
  await shot('team-empty');
  await clickText('Browse');
});

await check('Team: the model proposes three shares (share_memory); they wait as proposals and the pool is untouched', async () => {
  const share = (name, type, description, body) => ({ name: 'share_memory', arguments: { team: 'backend', name, entry_type: type, description, body } });
  await turn('Share what we learned today with the backend team.', [
    () => ({ toolCalls: [
      share('staging-redis-port', 'fact', 'The staging Redis port', 'Staging Redis listens on 6380.'),
      share('flaky-login-test', 'pitfall', 'Why the login test fails at random', 'The login test races the session cache; rerun it once.'),
      share('deploy-freeze', 'decision', 'When deploys are frozen', 'No deploys from Friday 16:00 until Monday 09:00.'),
    ] }),
    () => ({ content: 'Proposed three shares.' }),
  ]);
  const waiting = existsSync(PROPOSALS) ? readdirSync(PROPOSALS).sort() : [];
  expect(JSON.stringify(waiting) === JSON.stringify(['deploy-freeze.md', 'flaky-login-test.md', 'staging-redis-port.md']), `proposals on disk: ${JSON.stringify(waiting)}`);
  expect(JSON.stringify(readdirSync(join(POOL, 'knowledge'))) === JSON.stringify(['release-checklist']), `the pool holds ${JSON.stringify(readdirSync(join(POOL, 'knowledge')))}`);
});

await check('Team view: the mounted pool (folder, entry count) and each proposal with its team, type, description, body and when', async () => {
  await clickText('Team');
  await page.waitForSelector(memTab('[data-testid="somni-pool"][data-team="backend"]'), { timeout: 15_000 });
  const pool = await page.$eval(memTab('[data-testid="somni-pool"][data-team="backend"]'), (e) => e.textContent ?? '');
  expect(pool.includes('project folder') && pool.includes('1 entry') && pool.includes(`Folder: ${POOL}`), `the pool card reads: ${pool}`);
  await page.waitForSelector(teamCard('backend/deploy-freeze'), { timeout: 15_000 });
  const cards = await page.$$eval(memTab('[data-testid="somni-proposal"]'), (els) => els.map((e) => e.getAttribute('data-id')));
  expect(cards.length === 3, `proposal cards: ${JSON.stringify(cards)}`);
  const card = await page.$eval(teamCard('backend/flaky-login-test'), (e) => e.textContent ?? '');
  expect(card.includes('team backend') && card.includes('pitfall') && card.includes('Why the login test fails at random') && card.includes('races the session cache'), `the proposal reads: ${card}`);
  expect(/proposed [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d\s[AP]M/.test(card), `the proposal's time reads: ${card}`);
  const buttons = await page.$$eval(`${teamCard('backend/flaky-login-test')} button`, (els) => els.map((e) => e.textContent?.trim()));
  expect(JSON.stringify(buttons) === JSON.stringify(['Approve', 'Edit', 'Reject']), `the proposal offers ${JSON.stringify(buttons)}`);
  await shot('team');
});

await check('Team: Edit then "Approve with edits" writes the edited entry into the pool file, and says to commit it with the code', async () => {
  const id = 'backend/staging-redis-port';
  await clickIn(teamCard(id), 'Edit');
  await page.waitForSelector(`${teamCard(id)} [data-testid="somni-proposal-body"]`);
  await setInput(`${teamCard(id)} input`, 'The staging Redis host and port');
  await setEditor(`${teamCard(id)} [data-testid="somni-proposal-body"]`, 'Staging Redis: host `redis-stage-2`, port 6380.');
  // The whole form in view, above the chat composer DSH Web floats over the tab.
  await page.$eval(teamCard(id), (e) => e.scrollIntoView({ block: 'center' }));
  await shot('team-edit');
  await clickIn(teamCard(id), 'Approve with edits');
  await page.waitForSelector(memTab('[data-testid="somni-team-note"]'), { timeout: 15_000 });
  const file = join(POOL, 'knowledge', 'staging-redis-port', 'SKILL.md');
  const said = await page.$eval(memTab('[data-testid="somni-team-note"]'), (e) => e.textContent ?? '');
  expect(said.includes('Shared “staging-redis-port” with team backend as knowledge/staging-redis-port/SKILL.md.') && said.includes(`It is left for you to commit with your code: ${file}`), `after approve it says: ${said}`);
  const disk = existsSync(file) ? readFileSync(file, 'utf8') : '';
  expect(/description: The staging Redis host and port/.test(disk) && disk.includes('host `redis-stage-2`, port 6380') && /shared_by: Ada/.test(disk), `the pool file reads: ${disk}`);
  expect(!existsSync(join(PROPOSALS, 'staging-redis-port.md')), 'the approved proposal is still on disk');
  await waitFor('the approved card gone and the pool counting two', async () => {
    const ids = await page.$$eval(memTab('[data-testid="somni-proposal"]'), (els) => els.map((e) => e.getAttribute('data-id')));
    const pool = await page.$eval(memTab('[data-testid="somni-pool"]'), (e) => e.textContent ?? '');
    return !ids.includes(id) && pool.includes('2 entries');
  }, 15_000);
});

await check('Team: an approval the sidecar refuses (a teammate\'s entry of that name arrived meanwhile) shows its sentence and keeps the proposal', async () => {
  const id = 'backend/flaky-login-test';
  // Bob's entry of the same name, pulled from the project's repository after the proposal was made.
  const bobs = join(POOL, 'knowledge', 'flaky-login-test', 'SKILL.md');
  mkdirSync(dirname(bobs), { recursive: true });
  const text = '---\nname: flaky-login-test\ndescription: The login test is flaky on CI\ntype: pitfall\ncreated: 2026-11-28\nshared_by: Bob\n---\nQuarantined; see issue 412.\n';
  writeFileSync(bobs, text);
  await clickIn(teamCard(id), 'Approve');
  await page.waitForSelector(`${teamCard(id)} [data-testid="somni-proposal-error"]`, { timeout: 15_000 });
  const said = await page.$eval(`${teamCard(id)} [data-testid="somni-proposal-error"]`, (e) => e.textContent ?? '');
  expect(/^proposal backend\/flaky-login-test: team backend already has "flaky-login-test".*never overwritten/.test(said), `the refusal reads: ${said}`);
  expect(existsSync(join(PROPOSALS, 'flaky-login-test.md')), 'the refused proposal is gone from disk');
  expect(readFileSync(bobs, 'utf8') === text, 'the teammate\'s entry was changed');
  await scrollTab(0);
  await shot('team-refused');
});

await check('Team: Reject asks first, then removes the proposal from disk and the view', async () => {
  const id = 'backend/flaky-login-test';
  const asked = dialogs.length;
  await clickIn(teamCard(id), 'Reject');
  await waitText('the rejection', /Rejected “flaky-login-test”: nothing of it was shared or kept\./);
  expect(dialogs.length === asked + 1 && dialogs[asked]?.includes('flaky-login-test'), `the confirm asked: ${JSON.stringify(dialogs.slice(asked))}`);
  expect(!existsSync(join(PROPOSALS, 'flaky-login-test.md')), 'the rejected proposal is still on disk');
  await waitFor('the rejected card gone', async () => (await page.$(teamCard(id))) === null, 15_000);
  expect(readdirSync(PROPOSALS).join() === 'deploy-freeze.md', `proposals left: ${readdirSync(PROPOSALS).join()}`);
});

await check('Dreams: "Dream now" runs a dream over this session and the tab shows its outcome and diff', async () => {
  await clickText('Dreams');
  await page.waitForSelector(memTab('[data-testid="somni-dream-now"]'));
  await page.click(memTab('[data-testid="somni-dream-now"]'));
  await page.waitForSelector(memTab('[data-testid="somni-dream-last"]'), { timeout: 120_000 });
  const last = await page.$eval(memTab('[data-testid="somni-dream-last"]'), (e) => e.textContent ?? '');
  expect(/Last dream: finished/.test(last), `the last dream reads: ${last}`);
  const tab = await page.$eval(memTab(''), (e) => e.textContent ?? '');
  expect(!/deep_sleep|assoc\.thought|assoc\.action/.test(tab), 'internal names on the tab\'s face');
  expect(existsSync(join(KNOW, 'deploy-window', 'SKILL.md')), 'the dream did not write deploy-window');
  await page.waitForSelector(memTab('[data-testid="somni-dream"]'), { timeout: 15_000 }).catch(() => {});
  const diff = await page.$eval(memTab('[data-testid="somni-diff"]'), (e) => e.textContent ?? '').catch(() => '');
  await waitText('the dream\'s diary', /deploys run Tuesdays and Thursdays after 14:00, from this session/);
  // The diary's "## Created" is a heading of the card, not of the page: no larger than an entry's title.
  const heading = await page.$eval(memTab('[data-testid="somni-diary"] h2'), (e) => parseFloat(getComputedStyle(e).fontSize)).catch(() => NaN);
  const title = await page.$eval(memTab('[data-testid="somni-dream"] .somni-title'), (e) => parseFloat(getComputedStyle(e).fontSize));
  expect(heading >= title && heading <= 16, `the diary's heading is ${heading}px beside the card's title of ${title}px`);
  // The end of the dream's diff (a long card) scrolls clear of the composer.
  const gap = await composerGap('somni-dreams');
  expect(typeof gap === 'number' && gap > 0, `the end of the Dreams view is under the composer (gap ${gap} px)`);
  await scrollTab(0);
  await shot('dreams');
  if (!(diff.includes('deploy-window') || diff.includes('Tuesdays'))) {
    const r = await api('dreams', {});
    expect(false, `no diff naming the new memory in the Dreams view; somniMemory/dreams answers ${JSON.stringify(r.result).slice(0, 800)}`);
  }
});

await check('Dreams: "Undo this dream" (asked first) archives what the dream created, keeps an entry edited since and says so; then Undo of that entry alone', async () => {
  const card = memTab('[data-testid="somni-dream"]');
  await page.waitForSelector(`${card} [data-testid="somni-dream-undo"]`, { timeout: 15_000 });
  // A person edits deploy-window after the dream: the undo must not overwrite it.
  const deploy = join(KNOW, 'deploy-window', 'SKILL.md');
  const dreamt = readFileSync(deploy, 'utf8');
  const edited = dreamt.replace('after 14:00.', 'after 14:00, never on a public holiday.');
  writeFileSync(deploy, edited);
  const asked = dialogs.length;
  await page.click(`${card} [data-testid="somni-dream-undo"]`);
  await page.waitForSelector(memTab('[data-testid="somni-undone"] li[data-outcome="edited"]'), { timeout: 15_000 });
  expect(dialogs.length === asked + 1 && /^Undo the dream of /.test(dialogs[asked] ?? ''), `the confirm asked: ${JSON.stringify(dialogs.slice(asked))}`);
  const outcomes = await page.$$eval(memTab('[data-testid="somni-undone"] li'), (els) => els.map((e) => `${e.getAttribute('data-outcome')} ${e.textContent}`));
  expect(outcomes.some((o) => /^reverted memory\/knowledge\/release-train\/SKILL\.md — undone: archived to memory\/archived\/release-train\/SKILL\.md/.test(o)), `outcomes ${JSON.stringify(outcomes)}`);
  expect(outcomes.some((o) => /^edited memory\/knowledge\/deploy-window\/SKILL\.md — kept: changed since the dream \(.+\), so it was not overwritten/.test(o)), `outcomes ${JSON.stringify(outcomes)}`);
  expect(!existsSync(join(KNOW, 'release-train')), 'release-train is still active');
  expect(existsSync(join(dataDir, 'memory', 'archived', 'release-train', 'SKILL.md')), 'release-train is not in the archive');
  expect(readFileSync(deploy, 'utf8') === edited, 'the edited deploy-window was overwritten');
  await shot('dreams-undo');
  // The edit taken back by hand, the entry's own Undo goes through: archived, on disk.
  writeFileSync(deploy, dreamt);
  await page.click(`${card} [data-testid="somni-change-undo"][data-path="memory/knowledge/deploy-window/SKILL.md"]`);
  await page.waitForSelector(memTab('[data-testid="somni-undone"] li[data-outcome="reverted"][data-path="memory/knowledge/deploy-window/SKILL.md"]'), { timeout: 15_000 });
  expect(!existsSync(deploy), 'deploy-window is still active after its Undo');
  expect(existsSync(join(dataDir, 'memory', 'archived', 'deploy-window', 'SKILL.md')), 'deploy-window is not in the archive');
});

await check('Dreams: a running dream shows its progress and Cancel stops it', async () => {
  // Something new to dream about, and a dreamer slow enough to be caught running.
  await turn('Note that the deploy freeze starts on Friday.', [() => ({ content: 'Noted.' })]);
  // Each model turn of this dream takes 90 s: only Cancel can end it within the minute waited below
  // for a result, and a dream that finished by itself would read deep_sleep.
  dreamDelayMs = 90_000;
  const before = await page.$eval(memTab('[data-testid="somni-dream-last"]'), (e) => e.textContent ?? '').catch(() => '');
  await page.click(memTab('[data-testid="somni-dream-now"]'));
  await page.waitForSelector(memTab('[data-testid="somni-dreaming"]'), { timeout: 15_000 });
  // Its progress: the model turn it is on, of its budget (polled from sleep.status).
  await waitText('the dream\'s progress', /Dreaming… step 1 of \d+/);
  await shot('dreams-running');
  await clickText('Cancel');
  await page.waitForSelector(memTab('[data-testid="somni-dream-last"]'), { timeout: 60_000 });
  const after = await page.$eval(memTab('[data-testid="somni-dream-last"]'), (e) => e.textContent ?? '');
  dreamDelayMs = 0;
  expect(after !== before && /Last dream: stopped/.test(after), `after Cancel the last dream reads: ${after} (before: ${before})`);
});

await check('Health: doctor, index counts, pending logs and the log tail', async () => {
  await clickText('Health');
  await waitText('index counts', /Session logs waiting for a dream: \d+/);
  // The tail of logs/somni.log, where the plugin writes its lines and the sidecar's stderr.
  const tail = await page.$eval(memTab('[data-testid="somni-health"] pre'), (e) => e.textContent ?? '').catch(() => '');
  expect(/somni/i.test(tail), `the log tail reads: ${tail.slice(0, 300)}`);
  const gap = await composerGap('somni-health');
  expect(typeof gap === 'number' && gap > 0, `the end of the Health view is under the composer (gap ${gap} px)`);
  await scrollTab(0);
  await shot('health');
});

/**
 * Scrolled to the end, how far the last of the view `testid` stays above the chat composer DSH Web
 * floats over the tab (negative: under it), or why it could not be measured.
 */
async function composerGap(testid) {
  return page.evaluate((testid) => {
    const root = document.querySelector('[data-testid="somni-memory"]');
    const composer = document.querySelector('textarea:not(.somni-textarea)');
    if (!root || !composer) return 'no root or no composer';
    const last = root.querySelector(`[data-testid="${testid}"]`)?.lastElementChild;
    // Every scrolling box from the view up to the page, scrolled to its end, as a user scrolling down would.
    for (let el = last?.parentElement ?? null; el; el = el.parentElement) el.scrollTop = el.scrollHeight;
    return last ? composer.getBoundingClientRect().top - last.getBoundingClientRect().bottom : 'no content';
  }, testid);
}
/** Scrolls the tab, and every box around it that scrolls, to `top` (0: the start). */
async function scrollTab(top) {
  await page.$eval(memTab(''), (e, top) => {
    for (let el = /** @type {Element | null} */ (e); el; el = el.parentElement) el.scrollTop = top;
    // Whatever box scrolled the view last (a card brought into view), its start in sight.
    if (top === 0) e.querySelector('.somni-nav')?.scrollIntoView({ block: 'start' });
  }, top);
}

await check('Health: a data dir put under git sync by the installed binary shows its remote and that it is in step', async () => {
  // `sync init` from the installed package's own binary, as a user runs it by hand beside the web client.
  const bin = join(dshHome, 'profiles', 'web', 'node_modules', `dsh-somni-${process.platform}-${process.arch}`, 'bin', 'somni-sidecar');
  const remote = join(dir('sync-remote'), 'memory.git');
  const g = await run('git', ['init', '-q', '--bare', '-b', 'main', remote], { cwd: root, env });
  expect(g.code === 0, `git init --bare: ${tail(g.stderr)}`);
  // No git identity is set up: sync commits as "somni on <host>" by itself.
  const r = await run(bin, ['--data-dir', dataDir, 'sync', 'init', remote], { cwd: work, env });
  expect(r.code === 0, `sync init: exit ${r.code}: ${tail(r.stderr + r.stdout)}`);
  await clickText('Refresh');
  await page.waitForSelector(memTab('[data-testid="somni-health-sync"]'), { timeout: 15_000 });
  const card = await page.$eval(memTab('[data-testid="somni-health-sync"]'), (e) => e.textContent ?? '');
  expect(card.includes('In step with the remote.') && card.includes(`Remote: ${remote}`) && /Last round: /.test(card), `the sync card reads: ${card}`);
  await shot('health-sync');
});

await check('Export all: the browser saves the memory as a .tar.gz; unpacked, the installed binary\'s doctor finds a clean data dir with the same Markdown', async () => {
  const downloads = await saveDownloadsIn('exports');
  await page.click(memTab('[data-testid="somni-export"]'));
  await waitText('the export\'s outcome', /Saved \d+ memory files as somni-memory-\d{4}-\d{2}-\d{2}\.tar\.gz/);
  await scrollTab(0);
  await shot('health-export');
  const saved = await waitFor('the archive', () => readdirSync(downloads).find((f) => /^somni-memory-.*\.tar\.gz$/.test(f)), 15_000);
  const unpacked = dir('exported-data');
  const x = await run('tar', ['-xzf', join(downloads, saved), '-C', unpacked], { cwd: root, env });
  expect(x.code === 0, `tar: ${tail(x.stderr)}`);
  // The live session's log may grow after the export: what is compared is the curated memory.
  const md = (d) => listFiles(d).filter((f) => f.endsWith('.md') && (f.startsWith('memory/') || f.startsWith('skills/')) && !f.startsWith('memory/session-log/')).sort();
  const want = md(dataDir);
  const got = md(unpacked);
  expect(got.length > 0 && JSON.stringify(got) === JSON.stringify(want), `the archive holds ${got.length} files, the data dir ${want.length}: ${got.filter((f) => !want.includes(f)).concat(want.filter((f) => !got.includes(f))).slice(0, 10).join(', ')}`);
  for (const f of want) expect(readFileSync(join(unpacked, f), 'utf8') === readFileSync(join(dataDir, f), 'utf8'), `${f} differs in the archive`);
  const bin = join(dshHome, 'profiles', 'web', 'node_modules', `dsh-somni-${process.platform}-${process.arch}`, 'bin', 'somni-sidecar');
  const d = await run(bin, ['--data-dir', unpacked, 'doctor'], { cwd: work, env });
  expect(d.code === 0, `doctor on the unpacked archive: exit ${d.code}: ${tail(d.stdout + d.stderr)}`);
});

// A second session, compacted: three turns of facts with answers of real length, then `/compact`.
const CARRY = 'Billing facts for the migration';
const CARRY_REPLY = 'Noted. I have written that down with the other connection details for the billing migration, and I will use it when we get to the database step of the runbook later today. '.repeat(3);
let carrySid = '';
await check('/compact on a second session: the summary carries somni\'s block', async () => {
  ({ sessionId: carrySid } = await web.rpc('session.create', { cwd: work }));
  const said = [`${CARRY}: the billing database is db-billing-02.internal, database name billing_prod, user billing_rw.`, 'It listens on port 5432.', 'The port is 6433 now, not 5432.'];
  for (const [i, text] of said.entries()) {
    script = [() => ({ content: CARRY_REPLY })];
    await web.prompt(carrySid, text);
    await web.turnsEnded(carrySid, i + 1, 90_000);
  }
  script = [];
  const r = await web.command(carrySid, '/compact');
  expect(r.result?.kind === 'success', `/compact: ${JSON.stringify(r).slice(0, 600)}`);
});

await check('This session: a compaction that carried memory is listed with what it kept, the block folded away; the index line polls only while indexing', async () => {
  const summary = (await web.events(carrySid)).find((e) => e.type === 'compaction/summary');
  expect(summary, 'no compaction/summary event');
  const text = summary.data.summary.filter((/** @type {any} */ b) => b.type === 'text').map((/** @type {any} */ b) => b.text).join('\n');
  // memory.indexStatus as the sidecar answers it, but still indexing: 732 of 1,500 until the line shows
  // it, then 1,200 of 1,500 until the line has updated by itself, then as it is (done).
  const building = [{ entries: 1500, embedded: 732, pending: 768 }, { entries: 1500, embedded: 1200, pending: 300 }];
  let phase = 0;
  let healthCalls = 0;
  let doctorCalls = 0;
  /** @type {string[]} */
  const seen = [];
  const onRequest = async (/** @type {import('puppeteer-core').HTTPRequest} */ req) => {
    if (req.url().includes('/api/')) seen.push(req.url().replace(web.base, ''));
    // memory.health runs doctor over the whole store: the index line must never poll it.
    if (req.url().includes('/api/somniMemory/health')) doctorCalls++;
    if (!req.url().includes('/api/somniMemory/indexStatus')) return void req.continue();
    healthCalls++;
    const res = await fetch(req.url(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: req.postData() });
    const body = await res.json();
    const fake = building[phase];
    if (fake && body.result?.value) body.result.value = { ...body.result.value, ...fake };
    await req.respond({ status: res.status, contentType: 'application/json', body: JSON.stringify(body) });
  };
  await page.setRequestInterception(true);
  page.on('request', onRequest);
  try {
    await page.goto(web.base, { waitUntil: 'networkidle2' });
    await sleep(1000);
    await page.evaluate(() => { const b = document.querySelector('[role=dialog] button'); if (b instanceof HTMLElement) b.click(); });
    await waitText('the compacted session in the sidebar', new RegExp(CARRY)).catch(async () => {
      await clickText('Ungrouped');
      await waitText('the compacted session in the sidebar', new RegExp(CARRY));
    });
    await clickText(CARRY);
    await waitText('the session tabs', /Chat\s+Trajectory\s+Memory/);
    await clickText('Memory', '[role=tab],button,div,span');
    await waitText('the index line', /Indexing memory: 732 of 1,500 ready/, 10_000).catch((err) => expect(false, `${err.message.slice(0, 200)}; memory.indexStatus asked ${healthCalls} times; /api calls: ${seen.slice(-15).join(' ')}`));
    await shot('index-progress');
    phase = 1;
    await waitText('the index line, updated by itself', /Indexing memory: 1,200 of 1,500 ready/, 10_000);
    phase = 2;
    await waitFor('the index line gone once indexed', async () => !(await page.$(memTab('[data-testid="somni-index-progress"]'))), 10_000);
    const settled = healthCalls;
    await page.waitForSelector(memTab('[data-kind="compaction"]'), { timeout: 15_000 }).catch(async () => {
      const r = await api('session', { sessionId: carrySid });
      expect(false, `no compaction card; somniMemory/session answers ${JSON.stringify(r.result).slice(0, 600)}`);
    });
    const card = await page.$eval(memTab('[data-kind="compaction"]'), (e) => e.textContent ?? '');
    expect(card.includes('Memory carried into a compaction summary') && /\d[\d,]* characters, \d+ lines of memory kept/.test(card), `the compaction card reads: ${card.slice(0, 500)}`);
    const folded = await page.$eval(memTab('[data-kind="compaction"] details'), (e) => /** @type {HTMLDetailsElement} */ (e).open);
    expect(folded === false, 'the block is not folded away');
    const block = await page.$eval(memTab('[data-testid="somni-carried-block"]'), (e) => e.textContent ?? '');
    expect(block.trim().length > 0 && text.includes(block.trim()), `the card's block is not the summary's:\n${block}\n--- summary:\n${text}`);
    await page.click(memTab('[data-kind="compaction"] summary'));
    await sleep(300); // the chevron's turn
    await shot('session-compaction');
    await sleep(4000);
    expect(healthCalls === settled, `memory.indexStatus polled while idle: ${healthCalls - settled} more calls`);
    expect(healthCalls >= 3 && doctorCalls === 0, `while the index built, memory.indexStatus was asked ${healthCalls} times and memory.health (doctor) ${doctorCalls}`);
  } finally {
    page.off('request', onRequest);
    await page.setRequestInterception(false);
  }
});

/** The script that makes the browser's language Chinese, while it is installed (removed to go back to English). */
let chinese = '';
const speakChinese = async () => {
  ({ identifier: chinese } = await page.evaluateOnNewDocument(() => {
    Object.defineProperty(navigator, 'languages', { get: () => ['zh-CN', 'zh'] });
    Object.defineProperty(navigator, 'language', { get: () => 'zh-CN' });
  }));
};

await check('dark theme and Chinese: the tab reads 记忆 and its views take the theme\'s colours', async () => {
  await speakChinese();
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
  await page.goto(web.base, { waitUntil: 'networkidle2' });
  await sleep(1000);
  // The first-run notice, if shown again, in whichever language.
  await page.evaluate(() => { const b = document.querySelector('[role=dialog] button'); if (b instanceof HTMLElement) b.click(); });
  await waitText('the session in the sidebar', /Please read the staging notes/).catch(async () => {
    await page.evaluate(() => { const el = [...document.querySelectorAll('div,span,button')].find((e) => /^(Ungrouped|未分组)$/.test(e.textContent?.trim() ?? '')); if (el instanceof HTMLElement) el.click(); });
    await waitText('the session in the sidebar', /Please read the staging notes/);
  });
  await clickText('Please read the staging notes');
  await waitText('the Chinese tab label', /记忆/);
  await clickText('记忆', '[role=tab],button,div,span');
  await page.waitForSelector(memTab('[data-kind="hint"]'), { timeout: 15_000 });
  const nav = await page.$eval(memTab('.somni-nav'), (e) => e.textContent ?? '');
  expect(nav.includes('本会话') && nav.includes('浏览'), `the views' names read: ${nav}`);
  const colours = await page.$eval(memTab('[data-kind="hint"]'), (e) => getComputedStyle(e).color);
  const [r, g, b] = (colours.match(/\d+/g) ?? []).map(Number);
  expect((r ?? 0) + (g ?? 0) + (b ?? 0) > 3 * 128, `the text colour under the dark theme is ${colours}: not light`);
  // DSH's dark theme is on (body[data-ds-dark-theme]) and the tab draws with its values, not the light ones.
  const dark = await page.evaluate(() => document.body.hasAttribute('data-ds-dark-theme'));
  const c = await dshColours(DSH);
  const root = await styleOf(memTab(''), ['background-color', 'color']);
  const card = await styleOf(memTab('[data-kind="hint"]'), ['border-top-color']);
  expect(dark && root['background-color'] === TRANSPARENT && root.color === c['alias-label-primary'] && card['border-top-color'] === c['alias-border-l2'], `dark ${dark}: the tab ${JSON.stringify(root)}, a card ${JSON.stringify(card)}; DSH's dark values ${JSON.stringify(c)}`);
});

await check('Chinese: Browse shows days and kinds in Chinese, and says so in Chinese when nothing matches', async () => {
  await clickText('浏览');
  await page.waitForSelector(memTab(`[data-path="${PG}"]`), { timeout: 15_000 });
  const row = await page.$eval(memTab(`[data-path="${PG}"]`), (e) => e.textContent ?? '');
  expect(/\d{4}年\d{1,2}月\d{1,2}日/.test(row) && !/:\d\d/.test(row) && row.includes('知识'), `the row reads: ${row}`);
  await page.type(memTab('[data-testid="somni-browse"] input'), '量子色动力学');
  await clickText('搜索');
  await page.waitForSelector(memTab('[data-testid="somni-no-match"]'), { timeout: 15_000 });
  const said = await page.$eval(memTab('[data-testid="somni-no-match"]'), (e) => e.textContent ?? '');
  expect(said === '没有与“量子色动力学”相符的记忆。', `it says: ${said}`);
  await page.screenshot({ path: join(SHOTS, 'browse-nomatch-dark-zh.png') });
});

await check('Chinese: the Team view in Chinese under the dark theme, its times in Chinese', async () => {
  await clickText('团队');
  await page.waitForSelector(teamCard('backend/deploy-freeze'), { timeout: 15_000 });
  const view = await page.$eval(memTab('[data-testid="somni-team"]'), (e) => e.textContent ?? '');
  expect(view.includes('团队记忆库') && view.includes('项目文件夹') && view.includes('待你审批的分享') && view.includes('批准') && view.includes('拒绝'), `the Team view reads: ${view.slice(0, 600)}`);
  expect(/提议于 \d{4}年\d{1,2}月\d{1,2}日/.test(view), `the proposal's time reads: ${view.slice(0, 600)}`);
});

// --- every view again in Chinese, in the dark theme, and both (English in the light theme is above)
const GALLERY = [{ name: 'dark-zh', zh: true, dark: true }, { name: 'zh', zh: true, dark: false }, { name: 'dark', zh: false, dark: true }];
/** The page reloaded in Chinese or English and the dark or light theme (DSH follows the browser's), on the first session's Memory tab. */
async function openIn({ zh, dark }) {
  if (zh && !chinese) await speakChinese();
  if (!zh && chinese) {
    await page.removeScriptToEvaluateOnNewDocument(chinese);
    chinese = '';
  }
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' }]);
  await page.goto(web.base, { waitUntil: 'networkidle2' });
  await sleep(1000);
  // The first-run notice, if shown again, in whichever language.
  await page.evaluate(() => { const b = document.querySelector('[role=dialog] button'); if (b instanceof HTMLElement) b.click(); });
  await waitText('the session in the sidebar', /Please read the staging notes/, 5_000).catch(async () => {
    await page.evaluate(() => { const el = [...document.querySelectorAll('div,span,button')].find((e) => /^(Ungrouped|未分组)$/.test(e.textContent?.trim() ?? '')); if (el instanceof HTMLElement) el.click(); });
    await waitText('the session in the sidebar', /Please read the staging notes/);
  });
  await clickText('Please read the staging notes');
  await waitText('the Memory tab', zh ? /记忆/ : /Memory/);
  await clickText(zh ? '记忆' : 'Memory', '[role=tab],button,div,span');
  await page.waitForSelector(memTab('.somni-nav'), { timeout: 15_000 });
}
/** Each view as a user opens it, waited for by what shows it is loaded. */
const VIEWS = [
  ['session', async () => { await page.click(memTab('[data-pane="session"]')); await page.waitForSelector(memTab('[data-kind="hint"]'), { timeout: 15_000 }); }],
  ['browse', async () => { await page.click(memTab('[data-pane="browse"]')); await page.waitForSelector(memTab(`[data-path="${PG}"]`), { timeout: 15_000 }); }],
  ['new-memory', async (zh) => {
    await page.click(memTab('[data-testid="somni-new-open"]'));
    await page.waitForSelector(memTab('[data-testid="somni-new"]'));
    await page.type(memTab('[data-testid="somni-new"] input'), 'printer-queue');
    await page.type(memTab('[data-testid="somni-new"] input:nth-of-type(2)'), zh ? '办公室打印机的队列名，打印前用得上' : 'The office printer\'s queue name, for printing');
    await page.type(memTab('[data-testid="somni-new"] textarea'), zh ? '三楼打印机的队列是 **floor3-laser**。' : 'The third-floor printer\'s queue is **floor3-laser**.');
  }],
  ['entry', async () => {
    // Clicked as elements: a card low in the list may sit under the composer DSH floats over the tab.
    await page.$eval(memTab('[data-testid="somni-new"] button[type="button"]'), (e) => /** @type {HTMLElement} */ (e).click());
    await page.waitForSelector(memTab(`[data-path="${PG}"] .somni-link`), { timeout: 15_000 });
    await page.$eval(memTab(`[data-path="${PG}"] .somni-link`), (e) => /** @type {HTMLElement} */ (e).click());
    await page.waitForSelector(memTab('[data-testid="somni-body"]'), { timeout: 15_000 });
  }],
  ['team', async () => { await page.click(memTab('[data-pane="team"]')); await page.waitForSelector(memTab('[data-testid="somni-proposal"]'), { timeout: 15_000 }); }],
  ['dreams', async () => { await page.click(memTab('[data-pane="dreams"]')); await page.waitForSelector(memTab('[data-testid="somni-dream"] [data-testid="somni-diff"]'), { timeout: 15_000 }); }],
  ['health', async () => { await page.click(memTab('[data-pane="health"]')); await page.waitForSelector(memTab('[data-testid="somni-health-index"]'), { timeout: 15_000 }); }],
];

for (const variant of GALLERY) {
  await check(`${variant.zh ? 'Chinese' : 'English'}, ${variant.dark ? 'dark' : 'light'} theme: every view in that language and DSH's colours for that theme (screenshots *-${variant.name}.png)`, async () => {
    await openIn(variant);
    const dark = await page.evaluate(() => document.body.hasAttribute('data-ds-dark-theme'));
    expect(dark === variant.dark, `DSH's dark theme is ${dark ? 'on' : 'off'}`);
    const nav = await page.$eval(memTab('.somni-nav'), (e) => e.textContent ?? '');
    expect(variant.zh ? nav.includes('浏览') : nav.includes('Browse'), `the views' names read: ${nav}`);
    const c = await dshColours(DSH);
    for (const [view, open] of VIEWS) {
      await open(variant.zh);
      await sleep(300);
      const root = await styleOf(memTab(''), ['background-color', 'color']);
      expect(root['background-color'] === TRANSPARENT && root.color === c['alias-label-primary'], `${view}: the tab ${JSON.stringify(root)}, DSH ${JSON.stringify(c)}`);
      const browserFaced = await defaultControls(await dshFont());
      expect(browserFaced.length === 0, `${view}: controls with the browser's face: ${browserFaced.join('; ')}`);
      await shot(`${view}-${variant.name}`);
    }
  });
}

await check('no page errors during the run', async () => {
  expect(pageErrors.length === 0, `page errors: ${pageErrors.join(' | ')}`);
});

// --- /api as curl sees it: the host refuses what it must, with clear errors
await check('/api: a path out of the data dir is refused with a clear error', async () => {
  for (const path of ['../../etc/passwd', '/etc/passwd', 'memory/../../outside.md']) {
    const r = await api('read', { path });
    expect(r.result.ok === false && /outside the data directory|bad path|absolute/i.test(r.result.error?.message ?? ''), `read ${path}: ${JSON.stringify(r).slice(0, 400)}`);
  }
  const w = await api('write', { path: '../escape.md', raw: 'x', version: 'v' });
  expect(w.result.ok === false && /outside the data directory|bad path/i.test(w.result.error?.message ?? ''), `write ../escape.md: ${JSON.stringify(w).slice(0, 400)}`);
  expect(!existsSync(join(dshHome, 'escape.md')), 'a file was written outside the data dir');
});
await check('/api: approving or rejecting a proposal that does not wait says so', async () => {
  for (const method of ['approve', 'reject']) {
    const r = await api(method, { id: 'backend/no-such-share' });
    expect(r.result.ok === false && /no proposal backend\/no-such-share waits/.test(r.result.error?.message ?? ''), `${method}: ${JSON.stringify(r).slice(0, 400)}`);
  }
  const long = await api('approve', { id: 'x'.repeat(300) });
  expect(long.result.ok === false && /id is \d+ characters; the limit is 256/.test(long.result.error?.message ?? ''), `a 300-char id: ${JSON.stringify(long).slice(0, 400)}`);
});
await check('/api: an oversized body and an overlong path are refused with clear errors', async () => {
  const big = await api('write', { path: PG, raw: 'x'.repeat(300 * 1024), version: 'v' });
  expect(big.result.ok === false && /raw is \d+ characters; the limit is \d+/.test(big.result.error?.message ?? '') || big.status === 413, `300 KiB raw: ${JSON.stringify(big).slice(0, 400)}`);
  const long = await api('read', { path: `memory/${'a'.repeat(600)}.md` });
  expect(long.result.ok === false && /path is \d+ characters; the limit is \d+/.test(long.result.error?.message ?? ''), `600-char path: ${JSON.stringify(long).slice(0, 400)}`);
  const extra = await api('read', { path: PG, evil: 1 });
  expect(extra.result.ok === false, `an unknown argument was accepted: ${JSON.stringify(extra).slice(0, 300)}`);
});

await browser.close();
await web.stop();
await model.close();
registry?.stop();
const failed = results.filter((r) => !r.ok);
if (failed.length) console.log(`\nfailed:\n${failed.map((f) => `  - ${f.name}: ${f.err instanceof Error ? f.err.message : String(f.err)}`).join('\n')}`);
if (!process.env.BROWSER_KEEP) rmSync(root, { recursive: true, force: true });
console.log(`browser: ${results.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
