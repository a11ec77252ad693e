#!/usr/bin/env node
// `make demo`: a three-session story in the real DSH harness with dsh-somni and the real sidecar.
// Teach a fact → dream → a new session recalls it. Uses a scripted local model unless
// DEEPSEEK_API_KEY is set, in which case the harness talks to the real DeepSeek model.
// The story is also a test (`make test-plugin` runs it): it ends by checking what it showed —
// captured, dreamt, hinted, recalled and answered from memory — and exits non-zero when any failed.
// The scripted model answers only from what the recall tool returned, so a change in recall's
// output that loses the note fails here, not in front of a newcomer.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeModel, textsOf, toolNames } from './fake-model.mjs';
import { lastToolResult, listFiles, PLUGIN_DIR, REPO_DIR, runDsh, writePatch } from './harness.mjs';

const real = Boolean(process.env.DEEPSEEK_API_KEY);
const binary = process.env.SOMNI_SIDECAR_BIN || join(REPO_DIR, 'bin/somni-sidecar');
if (!existsSync(binary)) {
  console.error(`demo: ${binary} not found; run \`make build\``);
  process.exit(2);
}
const base = join(PLUGIN_DIR, '.harness/demo');
rmSync(base, { recursive: true, force: true });
const home = join(base, 'dsh-home');
const dataDir = join(base, 'somni-data');
const work = join(base, 'workspace');
mkdirSync(work, { recursive: true });
const patch = join(base, 'patch.yml');

const FACT = 'our staging server is stage-7.internal, and deploys go through `make deploy ENV=staging`';
const say = (who, text) => console.log(`  ${who.padEnd(10)} ${String(text).trim().split('\n').join('\n' + ' '.repeat(13))}`);
const firstLines = (t, n = 3) => String(t).split('\n').slice(0, n).join('\n');

let handler = () => ({ content: 'ok' });
let hintCount = 0;
/** @type {string[]} */
const hintTexts = [];
let recalled = '';
let requests = [];
const model = real ? undefined : await startFakeModel((req, i) => {
  requests.push(req);
  return handler(req, i);
});
writePatch(patch, {
  realModel: real,
  modelUrl: model?.url,
  pluginConfig: {
    binary,
    dataDir,
    // The hash embedder needs no model download; every hint setting stays at its default.
    embed: { provider: process.env.SOMNI_DEMO_EMBED || 'hash' },
    dream: { enabled: false },
  },
});

async function session(title, prompt, agentScript, dreamScript) {
  console.log(`\n== ${title}`);
  say('you:', prompt);
  let agentN = 0;
  let dreamN = 0;
  requests = [];
  const hints = new Set();
  handler = (req) => {
    if (toolNames(req).includes('create_knowledge')) return dreamScript(req, dreamN++);
    // Shown when the model first receives it: the plugin adds it before the model's step.
    for (const t of textsOf(req, 'user')) {
      if (t.includes('【记忆提示】') && !hints.has(t)) {
        hints.add(t);
        hintCount++;
        hintTexts.push(t);
        say('(hint)', `somni reminded the model, unasked: ${t}`);
      }
    }
    return agentScript(req, agentN++);
  };
  const r = await runDsh({ home, patch, prompt, cwd: work, env: real ? {} : { FAKE_LLM_KEY: 'demo' } });
  if (!real) {
    const dreams = requests.filter((q) => toolNames(q).includes('create_knowledge')).length;
    if (dreams) say('(dream)', `the dreamer made ${dreams} model calls through the harness (ctx.llm.stream)`);
  }
  say('assistant:', r.code === 0 ? r.stdout : `(dsh exited ${r.code})\n${r.stderr.slice(-800)}`);
  return r;
}

const logPaths = (req) => [...(textsOf(req, 'user')[0] ?? '').matchAll(/^- (.+\.md)$/gm)].map((m) => m[1]);
console.log(`dsh-somni demo — ${real ? 'real DeepSeek model (DEEPSEEK_API_KEY)' : 'scripted local model'}; sidecar ${binary}`);

await session('Session 1: teach a fact', `Note for later: ${FACT}.`, () => ({
  content: 'Got it — staging is stage-7.internal, and you deploy with `make deploy ENV=staging`.',
}));

await session('Session 2: dream (consolidate into long-term memory)', 'Please consolidate what you learned today into long-term memory now (use dream_now).', (req, i) => {
  if (i === 0) return { toolCalls: [{ name: 'dream_now', arguments: {} }] };
  say('(tool)', `dream_now → ${firstLines(lastToolResult(req), 2)}`);
  return { content: 'Done: today\'s conversation is consolidated into memory.' };
}, (req, i) => {
  if (i === 0) return { toolCalls: logPaths(req).slice(0, 1).map((path) => ({ name: 'read_session_log', arguments: { path } })) };
  if (i === 1) {
    return {
      toolCalls: [
        { name: 'create_knowledge', arguments: { name: 'staging-deploy', entry_type: 'fact', description: 'Staging is stage-7.internal; deploy with make deploy ENV=staging', body: 'The staging server is stage-7.internal. Deploys go through `make deploy ENV=staging`.' } },
        ...logPaths(req).map((path) => ({ name: 'mark_log_processed', arguments: { path } })),
      ],
    };
  }
  return { content: 'Dream complete: one new fact about staging deploys.' };
});

const answer = await session('Session 3: a new conversation recalls it', 'How do I deploy to staging again?', (req, i) => {
  if (i === 0) return { toolCalls: [{ name: 'recall_memories', arguments: { query: 'deploy staging' } }] };
  recalled = lastToolResult(req);
  say('(tool)', `recall_memories → ${firstLines(recalled, 3)}`);
  // The first quoted line (`> …`) is the best memory's own text: all this scripted model knows.
  const m = recalled.match(/^\s*> (.+)$/m);
  return { content: m ? `From memory: ${m[1]}` : 'I do not remember.' };
});

await model?.close();
const mem = join(dataDir, 'memory');
const files = listFiles(mem);
const knew = files.filter((f) => f.startsWith('knowledge/'));
console.log(`\n== What happened`);
console.log(files.some((f) => f.startsWith('session-log/'))
  ? `  - The plugin wrote every conversation to a session log (capture).`
  : `  - No session log was written: capture did not work.`);
console.log(knew.length > 0
  ? `  - The dream read the pending logs through the harness's own model, wrote ${knew.join(', ')}\n    and archived the logs it processed (session-log/archived/).`
  : `  - The dream wrote no knowledge entry.`);
if (!real) {
  console.log(hintCount > 0
    ? `  - In a new session the question matched that knowledge: somni added a 【记忆提示】 hint before\n    the model's first step, without being asked.`
    : `  - No 【记忆提示】 hint was given in session 3.`);
}
console.log(`\n== Memory files (in ${mem})`);
const what = (f) =>
  f.startsWith('knowledge/') ? 'knowledge written by the dream'
  : f.startsWith('session-log/archived/') ? 'session log, already dreamt'
  : f.startsWith('session-log/') ? 'session log, waiting for the next dream'
  : f.startsWith('intentions/') ? 'intention' : '';
for (const f of files) console.log(`  ${f.padEnd(44)} ${what(f)}`);
const k = join(dataDir, 'memory/knowledge/staging-deploy/SKILL.md');
if (existsSync(k)) {
  console.log(`\n== ${k}`);
  console.log(readFileSync(k, 'utf8').trim().split('\n').map((l) => `  ${l}`).join('\n'));
}
console.log(`\nThe search index is ${join(dataDir, 'index.sqlite')}; the harness's own sessions and profile are in ${home}.`);
console.log(real ? 'This run used the real DeepSeek model.' : 'Run it again with DEEPSEEK_API_KEY set to talk to the real DeepSeek model.');

// What the story showed, checked: each line is one thing a newcomer was just told.
const logs = files.filter((f) => f.startsWith('session-log/') && f.endsWith('.md'));
const checks = [
  ['session 1 was captured in a session log with the fact', logs.some((f) => readFileSync(join(mem, f), 'utf8').includes('stage-7.internal'))],
  ['the dream wrote the fact as knowledge and archived the log it read', existsSync(k) && readFileSync(k, 'utf8').includes('stage-7.internal') && logs.some((f) => f.startsWith('session-log/archived/'))],
  ['recall_memories in session 3 returned the note', recalled.includes('staging-deploy') && recalled.includes('stage-7.internal')],
  ['the answer in session 3 came from memory', answer.code === 0 && answer.stdout.includes('stage-7.internal') && (real || answer.stdout.includes('make deploy ENV=staging'))],
];
if (!real) checks.push(['somni hinted the note before the model\'s first step, unasked', hintTexts.some((t) => t.includes('staging-deploy'))]);
const failed = checks.filter(([, ok]) => !ok);
console.log(`\n== Checked`);
for (const [what, ok] of checks) console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
console.log(`e2e: ${checks.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length > 0 ? 1 : 0);
