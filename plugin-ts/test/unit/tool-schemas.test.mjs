// @ts-check
// The plugin registers the memory tools at load from the schemas shipped in the package
// (src/tool-schemas.ts, written by scripts/build.sh from the built sidecar's tools.list), so the
// first model request offers them before any sidecar answers. They must not drift from the binary:
// this asks the real binary for its tools.list and compares it with the shipped file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toSidecarTools } from '../../lib/methods.js';
import { Sidecar } from '../../lib/sidecar.js';
import { SHIPPED_TOOLS_LIST } from '../../lib/tool-schemas.js';
import { WORK_TOOL_NAMES } from '../../lib/tools.js';
import { localSpawn, recordingLog } from './helpers.mjs';

/** The binary scripts/build.sh packages beside the plugin (SOMNI_SIDECAR_BIN overrides). */
const REAL = process.env.SOMNI_SIDECAR_BIN || fileURLToPath(new URL('../../bin/somni-sidecar', import.meta.url));

test('the shipped tool schemas are exactly what the sidecar binary\'s tools.list says', { timeout: 60_000 }, async () => {
  assert.ok(existsSync(REAL), `${REAL} missing: run 'make build' and scripts/build.sh`);
  const dir = mkdtempSync(join(tmpdir(), 'somni-tool-schemas-'));
  const sc = new Sidecar({ spawn: localSpawn().spawn, argv: [REAL, '--data-dir', dir, '--embed', 'hash', '--llm', 'host'], env: {}, cwd: dir, log: recordingLog(), sidecarLog: recordingLog() });
  await sc.start();
  let live;
  try {
    live = await sc.callRaw('tools.list', {}, { timeoutMs: 30_000 });
  } finally {
    await sc.stop();
  }
  assert.deepEqual(SHIPPED_TOOLS_LIST, live, 'src/tool-schemas.ts is stale: rebuild with plugin-ts/scripts/build.sh and commit it');
  assert.deepEqual(toSidecarTools(SHIPPED_TOOLS_LIST), toSidecarTools(live));
});

test('the shipped schemas cover every work tool a stand-in exists for', () => {
  const names = toSidecarTools(SHIPPED_TOOLS_LIST).map((t) => t.name);
  for (const n of WORK_TOOL_NAMES) assert.ok(names.includes(n), `${n} not shipped: ${names.join(',')}`);
});
