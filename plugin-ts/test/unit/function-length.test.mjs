// @ts-check
// A function that outgrows a screenful has stopped doing one job: every function in src/ stays
// within MAX_LINES (apply() composes its phases instead of being them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';

const MAX_LINES = 150;
const SRC = new URL('../../src/', import.meta.url);

test(`no function in src/ is longer than ${MAX_LINES} lines`, () => {
  /** @type {string[]} */
  const long = [];
  for (const file of readdirSync(SRC).filter((f) => f.endsWith('.ts'))) {
    const src = ts.createSourceFile(file, readFileSync(new URL(file, SRC), 'utf8'), ts.ScriptTarget.Latest, true);
    /** @param {ts.Node} node */
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = src.getLineAndCharacterOfPosition(node.getStart(src)).line;
        const last = src.getLineAndCharacterOfPosition(node.end).line;
        if (last - first + 1 > MAX_LINES) long.push(`${file}:${first + 1} (${last - first + 1} lines)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(src);
  }
  assert.deepEqual(long, []);
});
