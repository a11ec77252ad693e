#!/usr/bin/env node
// End-to-end: memory across compaction, in the real harness (@deepseek-ai/dsh 0.1.0-rc.8, headless,
// the long-lived e2e driver) with the real sidecar and a scripted fake model.
//
// Run 1: a session states a fact, corrects it and adds an intention; then the harness compacts it
// twice — on a provider context overflow (the fake model answers HTTP 400 "maximum context length
// exceeded"; the engine compacts and retries) and through compactNow, the way /compact does. Each
// compaction summary must carry somni's digest block (the corrected fact, the intention id) within
// its bound, the checkpoint must reach the next agent request, the model must still find the fact
// with search_recent_conversation, and the session log must hold each user message exactly once.
// Run 2 (dream.napOnCompaction): the compaction is followed by a nap whose fake dreamer writes the
// fact as knowledge before the session goes on; a later full dream must not see the napped part.
// Usage: node test/e2e/compaction.mjs   (env SOMNI_SIDECAR_BIN overrides the binary; E2E_KEEP=1 keeps the temp dir)
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, textsOf, toolNames } from './fake-model.mjs';
import { allText, checkRunner, expect, finishRun, lastToolResult, listFiles, readMatching, runDsh, scriptedTurns, sidecarBinary, sleep, waitFor, writePatch } from './harness.mjs';

const binary = sidecarBinary();
const root = mkdtempSync(join(tmpdir(), 'somni-e2e-compaction-'));
const work = join(root, 'workspace');
mkdirSync(work, { recursive: true });
const { results, check } = checkRunner();

// What the tests look for. The digest's bound (plugin-ts/src/compaction.ts): min(1600, ¼ of the shadowed text).
const DIGEST_MAX_CHARS = 1600;
const DIGEST_MARK = '[memory] somni kept this session';
const CHECKPOINT_MARK = 'automatically generated checkpoint';
const FACT = 'Our staging database is on port 5432.';
const CORRECTION = 'Actually, correction: the staging database port is 6543, not 5432.';
const NATIVE_SUMMARY = 'Checkpoint: the user is preparing the staging deployment checklist with the assistant.';
/** Words that make a user message long: a compaction must shrink what it shadows, so there must be enough of it. */
const padding = (topic) =>
  Array.from({ length: 8 }, (_, i) => `Background on ${topic}, part ${i + 1}: the team walks through the usual review, the owners sign off, and the notes go to the shared folder.`).join(' ');

/** The text of a chat message (string or parts). */
const textOf = (m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('\n'));
const isCompaction = (headers) => headers?.['x-deepseek-harness-compact'] === '1';
const isDreamer = (req) => toolNames(req).includes('create_knowledge');

/**
 * The fake dreamer: reads every pending log it is given, writes one create_knowledge per fact it finds
 * in the logs' text, marks them processed. `seen` collects the log text each dream read.
 */
function fakeDreamer(seen) {
  const FACTS = [
    { re: /staging database port is (\d+)/i, name: 'staging-database-port', description: 'Port of the staging database', body: (m) => `The staging database listens on port ${m[1]}.` },
    { re: /deploy window is ([A-Za-z]+ [a-z]+)/i, name: 'deploy-window', description: 'When deploys happen', body: (m) => `Deploys happen ${m[1]}.` },
  ];
  return (req) => {
    const first = textsOf(req, 'user')[0] ?? '';
    const paths = [...first.matchAll(/^- (.+\.md)$/gm)].map((m) => m[1]);
    const steps = (req.messages ?? []).filter((m) => m.role === 'assistant').length;
    if (steps === 0) return { toolCalls: paths.map((path) => ({ name: 'read_session_log', arguments: { path } })) };
    if (steps === 1) {
      const logs = (req.messages ?? []).filter((m) => m.role === 'tool').map(textOf).join('\n');
      seen.push(logs);
      const found = FACTS.flatMap((f) => {
        const m = f.re.exec(logs);
        return m ? [{ name: 'create_knowledge', arguments: { name: f.name, entry_type: 'fact', description: f.description, body: f.body(m) } }] : [];
      });
      return { toolCalls: [...found, ...paths.map((path) => ({ name: 'mark_log_processed', arguments: { path } }))] };
    }
    return { content: 'Dream complete.' };
  };
}

/**
 * One host: the driver-controlled harness over `dataDir`. Compaction calls get NATIVE_SUMMARY (and are
 * recorded), dreamer calls go to the fake dreamer, the rest to the scripted user turns.
 */
async function host(name, dataDir, pluginExtra = {}) {
  const turns = scriptedTurns();
  const compactions = [];
  const dreams = { seen: [], requests: [] };
  const dreamer = fakeDreamer(dreams.seen);
  const model = await startFakeModel((req, i, headers) => {
    if (isCompaction(headers)) {
      compactions.push(req);
      return { content: NATIVE_SUMMARY };
    }
    if (isDreamer(req)) {
      dreams.requests.push(req);
      return dreamer(req);
    }
    return turns.answer(req);
  });
  const patch = join(root, `${name}.patch.yml`);
  writePatch(patch, {
    modelUrl: model.url,
    controlUrl: model.controlUrl,
    pluginConfig: { binary, dataDir, embed: { provider: 'hash' }, logLevel: 'debug', ...pluginExtra, dream: { enabled: false, ...pluginExtra.dream } },
  });
  const run = runDsh({ home: join(root, `${name}-home`), patch, prompt: `e2e ${name} host`, cwd: work, timeoutMs: 300_000 });
  return {
    model,
    compactions,
    dreams,
    turn: (text, script) => turns.turn(model, text, script),
    async exit() {
      await Promise.race([model.drive({ op: 'exit' }), sleep(10_000)]);
      const h = await run;
      await model.close();
      return h;
    },
  };
}

/** The digest block of a checkpoint or summary text: from its mark to the end of its text part. */
function digestBlock(text) {
  const at = text.indexOf(DIGEST_MARK);
  if (at < 0) return '';
  const end = text.indexOf('</compacted-summary>', at);
  return text.slice(at, end < 0 ? undefined : end).trim();
}
/** The bound the plugin applies to one compaction request: min(1600, ¼ of the text it shadows). */
function boundOf(compactionReq) {
  const msgs = (compactionReq.messages ?? []).filter((m) => m.role !== 'system');
  const shadowed = msgs.slice(0, -1).map(textOf).join('');
  return Math.min(DIGEST_MAX_CHARS, Math.floor(shadowed.length / 4));
}
/** The checkpoint user message of a request, as text ('' when none). */
const checkpointOf = (req) => textsOf(req, 'user').find((t) => t.includes(CHECKPOINT_MARK)) ?? '';
/** The session logs under `memory` (archived ones included). */
const logText = (memory) => readMatching(memory, /^session-log\/.*\.md$/);
/** The texts of a session log's entries of one role (`[user] <time>` starts an entry). */
const entries = (logs, role) =>
  logs
    .split(/^(?=\[\w+\] \d{4}-)/m)
    .filter((e) => e.startsWith(`[${role}] `))
    .map((e) => e.slice(e.indexOf('\n') + 1));

console.log(`e2e compaction: harness dsh, sidecar ${binary}\n      temp ${root}`);

// ---------------------------------------------------------------- run 1: the digest in the summary
const data1 = join(root, 'data1');
const h1 = await host('digest', data1);
const user1 = `${FACT} ${padding('the staging database')}`;
const user2 = `${CORRECTION} Please remind me to rotate the staging database credentials. ${padding('the credentials')}`;
const user3 = `Let us go through the deployment checklist now. ${padding('the checklist')}`;
let intentionId = '';
let overflow;

await check('run 1: the fact, the correction and an intention (add_intention) are told in two turns', async () => {
  const a = await h1.turn(user1, [() => ({ content: 'Noted.' })]);
  expect(a.reason === 'completed', `turn 1: ${JSON.stringify(a).slice(0, 500)}`);
  const b = await h1.turn(user2, [
    () => ({ toolCalls: [{ name: 'add_intention', arguments: { what: 'rotate the staging database credentials', cue: 'staging credentials' } }] }),
    () => ({ content: 'Corrected, and I will remind you.' }),
  ]);
  expect(b.reason === 'completed', `turn 2: ${JSON.stringify(b).slice(0, 500)}`);
  intentionId = /pi-\d{8}-\d{3}/.exec(lastToolResult(b.reqs[1]))?.[0] ?? '';
  expect(intentionId, `add_intention gave no id: ${lastToolResult(b.reqs[1])}`);
});

await check('run 1: a provider context overflow compacts the session and the request is retried', async () => {
  overflow = await h1.turn(user3, [
    () => ({ toolCalls: [{ name: 'bash', arguments: { command: 'echo checklist ok', description: 'Check the checklist' } }] }),
    () => ({ status: 400, error: 'maximum context length exceeded' }),
    () => ({ toolCalls: [{ name: 'search_recent_conversation', arguments: { query: 'staging database port' } }] }),
    () => ({ content: 'The staging database is on port 6543.' }),
  ]);
  expect(overflow.reason === 'completed', `turn 3: ${JSON.stringify(overflow).slice(0, 800)}`);
  expect(h1.compactions.length === 1, `compaction requests: ${h1.compactions.length}; the turn's compactions: ${JSON.stringify(overflow.compactions)}`);
  expect(overflow.compactions.length === 1 && overflow.compactions[0].summary, `compaction events: ${JSON.stringify(overflow.compactions)}`);
  expect(overflow.reqs.length === 4, `agent requests in the turn: ${overflow.reqs.length}`);
});

await check('run 1 (overflow): the summary carries somni\'s block with the corrected fact and the intention id, within its bound', async () => {
  const summary = overflow.compactions[0].summary;
  expect(summary.startsWith(NATIVE_SUMMARY), `the native summary is not first: ${summary.slice(0, 300)}`);
  const block = digestBlock(summary);
  expect(block, `no digest block in the summary: ${summary.slice(0, 1500)}`);
  const bound = boundOf(h1.compactions[0]);
  console.log(`      overflow compaction: digest block ${block.length} chars (bound ${bound}):\n${block.replace(/^/gm, '        | ')}`);
  expect(block.length <= bound, `block of ${block.length} chars is over its bound ${bound}`);
  expect(block.includes('6543'), `the corrected port is not in the block: ${block}`);
  expect(block.includes(intentionId), `the intention ${intentionId} is not in the block: ${block}`);
});

await check('run 1 (overflow): the retried request carries the checkpoint with the block; the model finds the fact again', async () => {
  const retried = overflow.reqs[2];
  const cp = checkpointOf(retried);
  expect(cp, `no checkpoint in the retried request: ${allText(retried).slice(0, 1500)}`);
  expect(cp.includes(NATIVE_SUMMARY) && digestBlock(cp).includes('6543'), `checkpoint without the native summary and the block: ${cp.slice(0, 1500)}`);
  const uncompacted = textsOf(retried, 'user').filter((t) => !t.includes(CHECKPOINT_MARK));
  expect(!uncompacted.some((t) => t.includes(FACT)), `the shadowed message is still in the retried request: ${uncompacted.join('\n').slice(0, 1000)}`);
  const found = lastToolResult(overflow.reqs[3]);
  expect(/6543|5432/.test(found) && /staging database/i.test(found), `search_recent_conversation did not find the fact: ${found.slice(0, 1000)}`);
});

let manual;
await check('run 1: compactNow (the /compact path) compacts again, and its summary carries the block too', async () => {
  manual = await h1.model.drive({ op: 'compact' });
  expect(!manual.error, `compact: ${manual.error}`);
  expect(manual.shadowed > 0 && h1.compactions.length === 2, `shadowed ${manual.shadowed}, compaction requests ${h1.compactions.length}: ${JSON.stringify(manual.compactions)}`);
  const block = digestBlock(manual.compactions[0]?.summary ?? '');
  const bound = boundOf(h1.compactions[1]);
  console.log(`      manual compaction: digest block ${block.length} chars (bound ${bound})`);
  expect(block && block.length <= bound, `block ${block.length} chars, bound ${bound}: ${JSON.stringify(manual.compactions).slice(0, 1500)}`);
  expect(block.includes('6543') && block.includes(intentionId), `block lacks the fact or the intention: ${block}`);
  const next = await h1.turn('What is left to do today?', [() => ({ content: 'Rotate the credentials.' })]);
  expect(digestBlock(checkpointOf(next.reqs[0])).includes(intentionId), `the next request has no checkpoint with the block: ${allText(next.reqs[0]).slice(0, 1500)}`);
});

await check('run 1: the session log has each user message exactly once, and no checkpoint or digest text', async () => {
  const logs = logText(join(data1, 'memory'));
  // The search result quotes earlier turns in a [tool] entry; the user's own entries are what is counted.
  const users = entries(logs, 'user');
  expect(users.length === 4, `${users.length} user entries:\n${users.join('\n---\n').slice(0, 2000)}`);
  for (const u of [FACT, CORRECTION, 'Let us go through the deployment checklist now.', 'What is left to do today?']) {
    const n = users.filter((t) => t.includes(u)).length;
    expect(n === 1, `"${u}" is in ${n} user entries`);
  }
  expect(!logs.includes(CHECKPOINT_MARK) && !logs.includes(DIGEST_MARK) && !logs.includes(NATIVE_SUMMARY), 'checkpoint or digest text reached the session log');
});

await check('run 1: host exits cleanly', async () => {
  const h = await h1.exit();
  expect(h.code === 0, `host exit ${h.code}: ${h.stderr.slice(-2000)}`);
});

// ---------------------------------------------------------------- run 2: a nap after compaction
const data2 = join(root, 'data2');
const knowledge = join(data2, 'memory/knowledge');
const h2 = await host('nap', data2, { dream: { napOnCompaction: true } });

await check('run 2 (napOnCompaction): after a compaction the nap writes the fact as knowledge before the session ends', async () => {
  const a = await h2.turn(user1, [() => ({ content: 'Noted.' })]);
  const b = await h2.turn(`${CORRECTION} ${padding('the correction')}`, [() => ({ content: 'Corrected.' })]);
  expect(a.reason === 'completed' && b.reason === 'completed', `turns: ${JSON.stringify([a, b]).slice(0, 800)}`);
  const c = await h2.model.drive({ op: 'compact' });
  expect(!c.error && c.shadowed > 0, `compact: ${JSON.stringify(c).slice(0, 800)}`);
  // compactNow's own flush waits (bounded) for the nap; the wait is only a margin for a slow machine.
  await waitFor('the nap\'s knowledge entry', () => existsSync(join(knowledge, 'staging-database-port/SKILL.md')), 60_000);
  expect(readFileSync(join(knowledge, 'staging-database-port/SKILL.md'), 'utf8').includes('6543'), 'the napped entry lacks the corrected port');
  expect(h2.dreams.seen.length === 1 && h2.dreams.seen[0].includes('6543'), `the nap read: ${JSON.stringify(h2.dreams.seen).slice(0, 1500)}`);
});

await check('run 2: a later full dream (dream_now) sees only what came after the nap, and duplicates nothing', async () => {
  await waitFor('the nap to finish', () => h2.dreams.requests.some((r) => (r.messages ?? []).filter((m) => m.role === 'assistant').length >= 2), 30_000);
  await sleep(500);
  const d = await h2.turn(`The deploy window is Thursday evening. ${padding('the deploy window')}`, [() => ({ content: 'Noted.' })]);
  expect(d.reason === 'completed', `turn: ${JSON.stringify(d).slice(0, 500)}`);
  const before = h2.dreams.seen.length;
  const firstFullRequest = h2.dreams.requests.length;
  const e = await h2.turn('Consolidate your memory now.', [() => ({ toolCalls: [{ name: 'dream_now', arguments: {} }] }), () => ({ content: 'Done.' })]);
  expect(/Dream finished/i.test(lastToolResult(e.reqs[1])), `dream_now: ${lastToolResult(e.reqs[1])}`);
  const full = h2.dreams.seen.slice(before).join('\n');
  expect(full.includes('deploy window'), `the full dream did not read the new messages: ${full.slice(0, 1500)}`);
  expect(!full.includes('5432') && !full.includes('6543'), `the full dream read the napped messages again: ${full.slice(0, 2000)}`);
  // Nor anywhere else in what the full dream was shown (its prompt lists logs, not their words, but check).
  const transcript = h2.dreams.requests.slice(firstFullRequest).map(allText).join('\n');
  expect(transcript.length > 0 && !transcript.includes(FACT) && !transcript.includes(CORRECTION), 'the napped user messages are in the full dream\'s transcript');
  const entries = listFiles(knowledge).filter((f) => f.endsWith('SKILL.md'));
  expect(entries.filter((f) => readFileSync(join(knowledge, f), 'utf8').includes('6543')).length === 1, `entries with the port: ${entries.join(', ')}`);
  expect(entries.includes('deploy-window/SKILL.md'), `knowledge: ${entries.join(', ')}`);
});

await check('run 2: host exits cleanly', async () => {
  const h = await h2.exit();
  expect(h.code === 0, `host exit ${h.code}: ${h.stderr.slice(-2000)}`);
});

finishRun(results, root);
