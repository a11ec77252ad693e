#!/usr/bin/env node
// End-to-end: memory across `/compact` in the web profile (@deepseek-ai/dsh 0.1.0-rc.8), driven through
// its `/api` the way the browser client drives it (test/e2e/web.mjs), with the real sidecar and a
// scripted fake model. A session is hinted a note, states a fact, corrects it and sets an intention;
// `/compact` runs; the harness's own summary keeps its text and gains somni's block (the correction, the
// intention's id, the hinted note); after it the same cue is hinted again, and
// the recall tool still finds the corrected fact in the compacted part, and the session log
// holds each message once.
// Then sessions as the web client typed them when compaction kept the wrong things: a few short turns of
// facts about a billing database (host, name, user, port) with plain corrections of its port (no
// "actually": "The port is 6432, not 5432.", "Sorry, … now", a later value said in Chinese), a hinted
// note about another database, and `/compact` at a budget of a few hundred characters. The block must
// carry what the user said (the host, name, user and only the latest port) before the hinted note,
// under a one-line header.
// Usage: node test/e2e/compaction-web.mjs   (SOMNI_SIDECAR_BIN overrides the binary; E2E_KEEP=1 keeps the temp dir)
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, textsOf, toolNames } from './fake-model.mjs';
import { checkRunner, expect, finishRun, lastToolResult, listFiles, sidecarBinary, writePatch } from './harness.mjs';
import { startDshWeb } from './web.mjs';

const binary = sidecarBinary();
const root = mkdtempSync(join(tmpdir(), 'somni-e2e-compact-web-'));
const data = join(root, 'data');
const work = join(root, 'workspace');
mkdirSync(work, { recursive: true });
const { results, check } = checkRunner();
// A note the user keeps by hand; the cue below brings it up as a hint.
const NOTE = 'staging-db-credentials';
mkdirSync(join(data, 'memory/knowledge', NOTE), { recursive: true });
writeFileSync(join(data, 'memory/knowledge', NOTE, 'SKILL.md'), `---
name: ${NOTE}
description: "Staging database credentials live in Vault under secret/staging/postgres"
type: fact
created: 2026-11-02
---

The staging Postgres credentials are in Vault at secret/staging/postgres; rotate them with the vault-rotate job.
`);
const CUE = 'Where do the staging Postgres credentials live in Vault?';

/** The harness's compaction request: its last user message is the engine's instruction. */
const isCompaction = (req) => textsOf(req, 'user').some((t) => t.startsWith('You are now acting as a compaction engine'));
const NATIVE = 'NATIVE SUMMARY: the user and the agent discussed the staging database.';
const SAID = [
  'Our staging database is on port 5432. Please keep that in mind for the migration work.',
  'Actually, correction: the staging database port is 6543, not 5432.',
  'Remind me to rotate the staging database credentials next week.',
];

// The agent's answers are long, as answers of real work are: a compaction shrinks a long span, and the
// digest's budget is a share of what it shadows.
const REPLY = `Noted. ${'I went through the migration scripts, the connection settings and the runbook for the staging cluster, and wrote down what to check next. '.repeat(10)}`;
/** @type {any[]} */
const compactions = [];
/** @type {(req: any) => any} */
let agent = () => ({ content: REPLY });
const model = await startFakeModel((req) => {
  if (isCompaction(req)) {
    compactions.push(req);
    return { content: NATIVE };
  }
  if (toolNames(req).includes('create_knowledge')) return { content: 'nothing to do' };
  return agent(req);
});
const patch = join(root, 'patch.yml');
writePatch(patch, { modelUrl: model.url, pluginConfig: { binary, dataDir: data, embed: { provider: 'hash' }, dream: { enabled: false }, logLevel: 'debug' } });

console.log(`e2e compaction (web): harness dsh --profile web, sidecar ${binary}\n      temp ${root}`);
const web = await startDshWeb({ home: join(root, 'home'), patch, cwd: work });
const { sessionId } = await web.rpc('session.create', { cwd: work });
/** @type {Map<string, number>} turns ended, per session */
const turns = new Map();
/**
 * One prompt; `script` answers this turn's agent requests in order (`reply` after the last).
 * @param {string} text @param {((req: any) => any)[]} [script] @param {{sid?: string, reply?: string}} [o]
 */
async function say(text, script = [], o = {}) {
  const sid = o.sid ?? sessionId;
  const reqs = [];
  agent = async (req) => {
    reqs.push(req);
    const step = script[reqs.length - 1];
    return step ? await step(req) : { content: o.reply ?? REPLY };
  };
  await web.prompt(sid, text);
  turns.set(sid, (turns.get(sid) ?? 0) + 1);
  await web.turnsEnded(sid, turns.get(sid));
  return reqs;
}
/** The text of a chat message (string or parts). @param {any} m */
const textOf = (m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((/** @type {any} */ p) => p.text ?? '').join('\n'));
/** The bound the plugin applies to a compaction request: min(1600, ¼ of the text it shadows). @param {any} req */
const boundOf = (req) => Math.min(1600, Math.floor((req.messages ?? []).filter((/** @type {any} */ m) => m.role !== 'system').slice(0, -1).map(textOf).join('').length / 4));
/**
 * `/compact` on a session: the text of its compaction summary, the request the summary answered and how
 * many tokens it shadowed. @param {string} sid
 */
async function compact(sid) {
  const before = compactions.length;
  const r = await web.command(sid, '/compact');
  expect(r.result?.kind === 'success', `/compact: ${JSON.stringify(r)}`);
  expect(compactions.length === before + 1, `compaction requests: ${compactions.length - before}`);
  const ev = (await web.events(sid)).find((e) => e.type === 'compaction/summary');
  expect(ev, 'no compaction/summary event');
  const text = ev.data.summary.filter((/** @type {any} */ b) => b.type === 'text').map((/** @type {any} */ b) => b.text).join('\n');
  return { text, req: compactions[compactions.length - 1], shadowedTokens: ev.data.shadowedTokenCount };
}

/** The hints of a request's current turn: its user messages after the last one the user typed. @param {any} req */
const hintsIn = (req) => {
  const texts = textsOf(req, 'user');
  return texts.slice(texts.lastIndexOf(CUE) + 1).filter((t) => t.includes('【记忆提示】'));
};

let intentionId = '';
await check('a session states a fact, corrects it and sets an intention; a cue is hinted once', async () => {
  const first = await say(CUE);
  expect(hintsIn(first[0]).some((h) => h.includes(NOTE)), `no hint naming ${NOTE}: ${JSON.stringify(textsOf(first[0], 'user')).slice(0, 800)}`);
  const again = await say(CUE);
  expect(hintsIn(again[0]).length === 0, `the same cue was hinted twice in one session: ${hintsIn(again[0])}`);
  await say(SAID[0]);
  await say(SAID[1]);
  const reqs = await say(SAID[2], [() => ({ toolCalls: [{ name: 'add_intention', arguments: { what: 'rotate the staging database credentials', due: 'next week' } }] })]);
  const out = lastToolResult(reqs[1]);
  intentionId = /pi-\d{8}-\d{3}/.exec(out)?.[0] ?? '';
  expect(intentionId, `add_intention: ${out}`);
});

let block = '';
await check('/compact: the summary keeps the native text and gains somni\'s block', async () => {
  const { text, shadowedTokens } = await compact(sessionId);
  expect(text.includes(NATIVE), `the native summary was replaced: ${text.slice(0, 400)}`);
  block = text.slice(text.indexOf('[memory] somni'));
  expect(text.indexOf('[memory] somni') > text.indexOf(NATIVE), `no somni block after the native summary:\n${text}`);
  for (const want of ['6543, not 5432', intentionId, 'rotate the staging database credentials', `${NOTE} (hinted; memory/knowledge/${NOTE}/SKILL.md)`]) expect(block.includes(want), `block lacks ${want}:\n${block}`);
  expect(block.length <= 1600, `block is ${block.length} chars`);
  console.log(`      somni block: ${block.length} chars; ${shadowedTokens} tokens compacted`);
});

await check('after /compact the same cue is hinted again (the hints before it were compacted away)', async () => {
  const reqs = await say(CUE);
  expect(hintsIn(reqs[0]).some((h) => h.includes(NOTE)), `no hint after compaction: ${JSON.stringify(textsOf(reqs[0], 'user')).slice(0, 800)}`);
});

await check('after /compact the model sees the block and the recall finds the compacted fact', async () => {
  const reqs = await say('Which port does staging use again?', [
    () => ({ toolCalls: [{ name: 'search_recent_conversation', arguments: { query: 'staging database port correction' } }] }),
    () => ({ content: 'Port 6543.' }),
  ]);
  expect(textsOf(reqs[0], 'user').some((t) => t.includes('6543, not 5432') && t.includes(intentionId)), `the first request after compaction lacks the block: ${JSON.stringify(textsOf(reqs[0], 'user')).slice(0, 1500)}`);
  const found = lastToolResult(reqs[1]);
  expect(found.includes('6543, not 5432'), `search_recent_conversation did not reach the compacted part: ${found.slice(0, 800)}`);
});

// The billing sessions. The agent answers in a sentence or two, so the digest's budget (a quarter of what
// `/compact` shadows) is a few hundred characters, as it was when the correction was lost.
const SHORT_REPLY = 'Noted. I have written that down with the other connection details for the billing migration, and I will use it when we get to the database step of the runbook later today.';
const BILLING = [
  {
    name: 'English, plain corrections',
    said: [
      'The billing database is db-billing-02.internal, database name billing_prod, user billing_rw.',
      'It listens on port 5432.',
      'The port is 6432, not 5432.',
      'Sorry, billing runs on port 6433 now',
    ],
    kept: ['db-billing-02.internal', 'billing_prod', 'billing_rw', '6433'],
    replaced: ['6432', '5432'],
  },
  {
    name: 'Chinese, a later value for the port, then a change',
    said: ['账单数据库在 db-billing-02，数据库名 billing_prod，用户 billing_rw，端口 5432。', '端口是 6432。', '端口改成 6433 了'],
    kept: ['db-billing-02', 'billing_prod', 'billing_rw', '6433'],
    replaced: ['5432', '6432'],
  },
];
for (const b of BILLING) {
  await check(`/compact keeps what the user said over a hinted note (${b.name})`, async () => {
    const { sessionId: sid } = await web.rpc('session.create', { cwd: work });
    const cued = await say(CUE, [], { sid, reply: SHORT_REPLY });
    expect(hintsIn(cued[0]).some((h) => h.includes(NOTE)), `no hint naming ${NOTE}: ${JSON.stringify(textsOf(cued[0], 'user')).slice(0, 800)}`);
    for (const t of b.said) await say(t, [], { sid, reply: SHORT_REPLY });
    const { text, req } = await compact(sid);
    const bound = boundOf(req);
    const at = text.indexOf('[memory] somni');
    expect(at > text.indexOf(NATIVE), `no somni block after the native summary:\n${text}`);
    const got = text.slice(at);
    console.log(`      ${b.name}: block ${got.length} chars (bound ${bound}):\n${got.replace(/^/gm, '        | ')}`);
    expect(bound < 600, `the session shadowed more than intended (bound ${bound}): the test is about a tight budget`);
    expect(got.length <= bound, `block of ${got.length} chars is over its bound ${bound}`);
    const head = got.split('\n')[0];
    expect(head.length <= 80, `the header is ${head.length} chars: ${head}`);
    const note = got.indexOf(NOTE);
    for (const want of b.kept) {
      const i = got.indexOf(want);
      expect(i > 0 && (note < 0 || i < note), `${want} is missing or after the hinted note:\n${got}`);
    }
    for (const old of b.replaced) expect(!got.includes(old), `the replaced value ${old} is in the block:\n${got}`);
  });
}

await check('the session log holds each message once, and no summary', async () => {
  const stop = await web.stop();
  expect(stop.code === 0 || stop.signal === 'SIGTERM', `dsh web exit ${JSON.stringify(stop)}: ${web.output().stderr.slice(-1500)}`);
  const logs = listFiles(join(data, 'memory/session-log')).filter((f) => f.endsWith('.md')).map((f) => readFileSync(join(data, 'memory/session-log', f), 'utf8'));
  // The turns are counted in the first session's log (the billing sessions have their own); no log holds a summary.
  const text = logs.filter((t) => t.includes(sessionId)).join('\n');
  // The user's blocks ("[user] <time>" then the text, up to the next block).
  const userTurns = text.split(/\n\[user\] [^\n]*\n/).slice(1).map((b) => b.split(/\n\n\[(?:user|agent|tool)\] /)[0].trim());
  for (const s of [...SAID, 'Which port does staging use again?']) {
    const n = userTurns.filter((u) => u === s).length;
    expect(n === 1, `${JSON.stringify(s)} is logged ${n} times`);
  }
  expect(userTurns.filter((u) => u === CUE).length === 3, `the cue, said three times, is logged ${userTurns.filter((u) => u === CUE).length} times`);
  expect(userTurns.length === SAID.length + 4, `user turns logged: ${JSON.stringify(userTurns)}`);
  for (const never of [NATIVE, 'compaction engine', '[memory] somni']) expect(!logs.some((t) => t.includes(never)), `a log holds ${never}`);
});

await model.close();
finishRun(results, root);
