// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clip } from '../../lib/clip.js';

// What each caller wrote before the clippers were one: each mode must stay byte-identical to it.
const before = {
  /** capture: code points, the sidecar's marker. @param {string} t @param {number} max */
  original: (t, max) => {
    const chars = Array.from(t);
    return chars.length <= max ? t : `${chars.slice(0, max).join('')}\n...(truncated, original ${chars.length} chars)`;
  },
  /** somni.log lines. @param {string} t @param {number} max */
  removed: (t, max) => (t.length <= max ? t : `${t.slice(0, max)}…[+${t.length - max} chars]`),
  /** the sidecar's stderr tail. @param {string} t @param {number} max */
  ellipsis: (t, max) => (t.length > max ? `${t.slice(0, max)}…` : t),
  /** notice summaries. @param {string} t @param {number} max */
  ellipsisWithin: (t, max) => (t.length <= max ? t : `${t.slice(0, max - 1)}…`),
};

const samples = ['', 'a', 'abcdef', 'x'.repeat(300), 'x'.repeat(301), '猫🐈猫🐈猫', '🐈'.repeat(7), 'line\nbreak\tand tab', 'é'.repeat(12)];
const limits = [1, 3, 5, 6, 7, 10, 120, 300];

test('every clip mode writes what its caller wrote before, byte for byte', () => {
  for (const mode of /** @type {const} */ (['original', 'removed', 'ellipsis', 'ellipsisWithin'])) {
    for (const t of samples) for (const max of limits) assert.equal(clip(t, max, mode), before[mode](t, max), `${mode} ${JSON.stringify(t)} ${max}`);
  }
});

test('original counts code points and notes the whole length, like the sidecar', () => {
  assert.equal(clip('猫🐈猫🐈猫', 5, 'original'), '猫🐈猫🐈猫');
  assert.equal(clip('猫🐈猫🐈猫', 3, 'original'), '猫🐈猫\n...(truncated, original 5 chars)');
  assert.equal(clip('🐈🐈', 1, 'original'), '🐈\n...(truncated, original 2 chars)', 'never splits a surrogate pair');
});

test('removed notes how many units were cut', () => {
  assert.equal(clip('y'.repeat(50), 10, 'removed'), `${'y'.repeat(10)}…[+40 chars]`);
  assert.equal(clip('y'.repeat(10), 10, 'removed'), 'y'.repeat(10));
});

test('ellipsis appends past the bound; ellipsisWithin keeps the result within it', () => {
  assert.equal(clip('z'.repeat(301), 300, 'ellipsis'), `${'z'.repeat(300)}…`);
  assert.equal(clip('z'.repeat(300), 300, 'ellipsis'), 'z'.repeat(300));
  assert.equal(clip('z'.repeat(500), 120, 'ellipsisWithin'), `${'z'.repeat(119)}…`);
  assert.equal(clip('z'.repeat(500), 120, 'ellipsisWithin').length, 120);
  assert.equal(clip('z'.repeat(120), 120, 'ellipsisWithin'), 'z'.repeat(120));
});
