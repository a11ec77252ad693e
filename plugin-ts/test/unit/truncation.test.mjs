// @ts-check
// The truncation cases the sidecar's session log is tested against too: whichever side cuts a
// message, the session log must read the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SessionMapper } from '../../lib/capture.js';
import { clip } from '../../lib/clip.js';
import { partial } from './doubles.mjs';

/**
 * @typedef {{ name: string, maxChars: number, char: string, length: number, truncated: boolean, keptChars: number, marker: string }} TruncationCase
 */

/** @type {{ cases: TruncationCase[] }} */
const fixture = JSON.parse(readFileSync(new URL('../../../testdata/capture/truncation.json', import.meta.url), 'utf8'));

test('the shared truncation fixture has the cases it promises', () => {
  assert.ok(fixture.cases.length > 0);
  for (const c of fixture.cases) assert.equal(Array.from(c.char).length, 1, `${c.name}: char is one code point`);
  assert.ok(fixture.cases.some((c) => c.length === c.maxChars), 'a case exactly at the limit');
  assert.ok(fixture.cases.some((c) => c.truncated && c.char.length === 2), 'a truncated astral-plane case');
});

for (const c of fixture.cases) {
  test(`capture clips like the sidecar: ${c.name}`, () => {
    const input = c.char.repeat(c.length);
    const want = c.char.repeat(c.keptChars) + c.marker;
    assert.equal(c.truncated, c.marker !== '', 'a marker exactly when truncated');
    const got = clip(input, c.maxChars, 'original');
    assert.equal(got === input, !c.truncated);
    assert.ok(got === want, `clip: ${Array.from(got).length} chars, want ${Array.from(want).length}; tail ${JSON.stringify(got.slice(-60))}`);
    // The path a captured message takes: the user's words through the session mapper.
    const mapper = new SessionMapper('s', c.maxChars, () => false);
    const ops = mapper.map({ type: 'user/message', seq: 1, time: 0, data: partial({ id: 'u', role: 'user', content: [{ type: 'text', text: input }], source: { kind: 'user' } }) });
    assert.equal(ops.length, 1);
    const op = ops[0];
    assert.ok(op.method === 'session.append' && op.params.text === want, `${c.name}: session.append carries the clipped text`);
  });
}
