#!/usr/bin/env node
// End-to-end: a 【记忆提示】 hint after each of the harness's built-in tools (@deepseek-ai/dsh 0.1.0-rc.8:
// bash, read, read_image, write, edit, str_replace_editor, grep, glob, web_fetch, web_search), in the
// real harness with the real sidecar and a scripted fake model. The memories are written by the
// dreamer itself (dream_now → create_knowledge), as a user's would be. For each tool, a new session
// whose model calls that tool once: the next model request must carry a hint naming the memory the
// call touches. An ordinary call gets none.
// Usage: node test/e2e/hints.mjs   (env SOMNI_SIDECAR_BIN overrides the binary; E2E_KEEP=1 keeps the temp dir)
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, textsOf, toolNames } from './fake-model.mjs';
import { PLUGIN_DIR, REPO_DIR, lastToolResult, listFiles, runDsh, sleep, writePatch, checkRunner, expect, finishRun, sidecarBinary } from './harness.mjs';

const binary = sidecarBinary();
const root = mkdtempSync(join(tmpdir(), 'somni-e2e-hints-'));
const data = join(root, 'data');
const work = join(root, 'workspace');
const { results, check } = checkRunner();

// The workspace the tools act on: files named after what the memories are about.
const files = {
  'docs/staging-postgres-notes.md': 'Connection notes.\n',
  'config/feature_flags.yaml': 'checkout_v2:\n  enabled: false\n',
  'services/kafka-consumer/main.go': 'package main\n',
  'deploy/liveness-probes/api.yaml': 'probe: {}\n',
  'src/index.ts': 'export {};\n',
};
for (const [rel, text] of Object.entries(files)) {
  mkdirSync(join(work, rel, '..'), { recursive: true });
  writeFileSync(join(work, rel), text);
}
// A 1×1 PNG for read_image.
mkdirSync(join(work, 'diagrams'), { recursive: true });
writeFileSync(join(work, 'diagrams/alert-routing.png'), Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'));

// What the dreamer writes (its create_knowledge calls), from what a user told the agent.
const MEMORIES = [
  { name: 'staging-postgres', entry_type: 'fact', description: 'Staging Postgres host and port', body: 'Staging Postgres: host `pg-stage-7`, port 6543.' },
  { name: 'feature-flag-service', entry_type: 'fact', description: 'Feature flags live in Unleash', body: 'Feature flags are served by Unleash; its client reads the flag set from FLAGSET_CHECKOUT.' },
  { name: 'kafka-consumer-lag', entry_type: 'pitfall', description: 'Kafka consumer lag spikes during rebalances', body: 'The payments Kafka consumer group lags for minutes during rebalances; static membership (group.instance.id) fixed it.' },
  { name: 'liveness-probe-restarts', entry_type: 'pitfall', description: 'Restart loops from an aggressive liveness probe', body: 'Pods restarted in a loop because the liveness probe timed out after 1 s during warm-up; use a startup probe.' },
  { name: 'alert-routing', entry_type: 'fact', description: 'Where production alerts are routed', body: 'Production alerts are routed by Alertmanager to the #ops-pager channel; the routing diagram is kept with the runbooks.' },
  { name: 'release-calendar', entry_type: 'decision', description: 'Release train calendar', body: 'The release train leaves every second Tuesday; the calendar is on the team wiki under release-train-calendar.' },
];
const at = (rel) => join(work, rel);
// Each built-in tool, called the way a model calls it, and the memory the next request must hint.
const CALLS = [
  { tool: 'read', args: { file_path: at('docs/staging-postgres-notes.md') }, memory: 'staging-postgres' },
  { tool: 'bash', args: { command: 'echo connecting to pg-stage-7 on 6543', description: 'Say where we connect' }, memory: 'staging-postgres' },
  { tool: 'grep', args: { pattern: 'FLAGSET_CHECKOUT', path: work }, memory: 'feature-flag-service' },
  { tool: 'glob', args: { pattern: '*.go', path: at('services/kafka-consumer') }, memory: 'kafka-consumer-lag' },
  { tool: 'write', args: { file_path: at('notes/kafka-consumer-lag.md'), content: '# Lag\n' }, memory: 'kafka-consumer-lag' },
  { tool: 'edit', args: { file_path: at('config/feature_flags.yaml'), old_string: 'enabled: false', new_string: 'enabled: true' }, memory: 'feature-flag-service' },
  { tool: 'str_replace_editor', args: { command: 'view', path: at('deploy/liveness-probes/api.yaml') }, memory: 'liveness-probe-restarts' },
  { tool: 'read_image', args: { file_path: at('diagrams/alert-routing.png') }, memory: 'alert-routing' },
  { tool: 'web_fetch', args: { url: 'https://wiki.example.com/team/release-train-calendar' }, memory: 'release-calendar' },
  { tool: 'web_search', args: { queries: ['staging postgres pg-stage-7 port'] }, memory: 'staging-postgres' },
];

let agentTurn = () => ({ content: 'ok' });
let dreamer = () => ({ content: 'nothing to do' });
const model = await startFakeModel((req) => (toolNames(req).includes('create_knowledge') ? dreamer(req) : agentTurn(req)));
const patch = join(root, 'patch.yml');
writePatch(patch, {
  modelUrl: model.url,
  controlUrl: model.controlUrl,
  imageInput: true,
  pluginConfig: { binary, dataDir: data, embed: { provider: 'hash' }, dream: { enabled: false }, logLevel: 'debug' },
  // The web tools against in-memory providers; the edit without the read-first policy, whose
  // read would hint the same memory first (habituation: one hint per memory per session).
  extraRows: `- id: fs-observation-policy
  disabled: true
- id: web
  config: {searchProvider: fake-web, fetchProvider: fake-web}
- id: tool-web
  config: {fetch: true, searchTimeoutMs: 60000}
- insert:
    - id: somni-e2e-fake-web
      name: ${JSON.stringify(join(PLUGIN_DIR, 'test/e2e/fake-web-plugin.mjs'))}`,
});

/** One user turn in a new session; `script` answers this turn's agent requests in order. */
async function turn(text, script) {
  const reqs = [];
  agentTurn = async (req) => {
    reqs.push(req);
    const step = script[reqs.length - 1];
    return step ? await step(req) : { content: 'done' };
  };
  const r = await model.drive({ op: 'prompt', text, newSession: true });
  return { ...r, reqs };
}
const hintTexts = (msgs) => msgs.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).filter((t) => t.includes('【记忆提示】'));

console.log(`e2e hints: harness dsh, sidecar ${binary}\n      temp ${root}`);
const host = runDsh({ home: join(root, 'home'), patch, prompt: 'e2e hints host', cwd: work, timeoutMs: 240_000 });

await check('the dreamer writes the memories (dream_now → create_knowledge)', async () => {
  let step = 0;
  dreamer = () => (step++ === 0 ? { toolCalls: MEMORIES.map((m) => ({ name: 'create_knowledge', arguments: m })) } : { content: 'Dream complete.' });
  const r = await turn('Consolidate your memory now.', [() => ({ toolCalls: [{ name: 'dream_now', arguments: {} }] }), () => ({ content: 'Done.' })]);
  expect(r.reason === 'completed', `turn: ${JSON.stringify(r).slice(0, 500)}`);
  const made = listFiles(join(data, 'memory/knowledge'));
  for (const m of MEMORIES) expect(made.includes(`${m.name}/SKILL.md`), `no ${m.name}; knowledge: ${made.join(', ')}`);
  await sleep(1500); // the index picks the new files up
});

for (const c of CALLS) {
  await check(`${c.tool}: the next request carries the hint naming ${c.memory}`, async () => {
    const steps = [];
    if (c.pre) steps.push(() => ({ toolCalls: [{ name: c.pre.tool, arguments: c.pre.args }] }));
    steps.push(() => ({ toolCalls: [{ name: c.tool, arguments: c.args }] }), () => ({ content: 'Done.' }));
    const r = await turn(`Please use ${c.tool} for me.`, steps);
    expect(r.reason === 'completed', `turn: ${JSON.stringify(r).slice(0, 500)}`);
    const names = toolNames(r.reqs[0]);
    expect(names.includes(c.tool), `the harness does not offer ${c.tool}: ${names.join(',')}`);
    const after = r.reqs[steps.length - 1];
    const out = lastToolResult(after);
    expect(!/^(Error|error:)|not found|denied|unavailable/i.test(out.slice(0, 200)), `${c.tool} failed: ${out.slice(0, 500)}`);
    const msgs = after.messages;
    const toolAt = msgs.map((m) => m.role).lastIndexOf('tool');
    const before = c.pre ? hintTexts(r.reqs[1].messages) : [];
    expect(before.length === 0, `the preparatory ${c.pre?.tool} already hinted: ${before}`);
    const hints = hintTexts(msgs.slice(toolAt + 1));
    expect(hints.some((h) => h.includes(`【记忆提示】[memory] ${c.memory}:`)), `no hint naming ${c.memory} after ${c.tool}: ${JSON.stringify(msgs.slice(toolAt)).slice(0, 1200)}`);
  });
}

await check('an ordinary read gets no hint', async () => {
  const r = await turn('Show me the entry point.', [() => ({ toolCalls: [{ name: 'read', arguments: { file_path: at('src/index.ts') } }] }), () => ({ content: 'Done.' })]);
  expect(r.reason === 'completed', `turn: ${JSON.stringify(r).slice(0, 500)}`);
  expect(hintTexts(r.reqs[1].messages).length === 0, `hints: ${hintTexts(r.reqs[1].messages)}`);
  expect(!textsOf(r.reqs[1], 'user').some((t) => t.includes('【记忆提示】')), 'a hint reached the request');
});

await check('host exits cleanly', async () => {
  await Promise.race([model.drive({ op: 'exit' }), sleep(10_000)]);
  const h = await host;
  expect(h.code === 0, `host exit ${h.code}: ${h.stderr.slice(-2000)}`);
});

await model.close();
finishRun(results, root);
