#!/usr/bin/env node
// Bundles client/ (the Memory tab) into lib/client.js in the format the DSH web client loads:
// one `window.__ModuleLoader__.load({id, factory})` call whose factory holds esbuild's CJS output.
// React, Cordis and the host's slot/primitive modules come from the web shell's module table, so they
// stay external (bundling a second React breaks hooks); everything else (marked) is bundled.
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PLUGIN = join(dirname(fileURLToPath(import.meta.url)), '..');
const ID = JSON.parse(readFileSync(join(PLUGIN, 'package.json'), 'utf8')).name;
// The rc.8 web shell's static module table plus the parser-preloaded runtime (dsh-client-modules).
const HOST_PROVIDED = [
  'react', 'react/jsx-runtime', 'react-dom', 'react-dom/client',
  '@deepseek-ai/cordis', '@deepseek-ai/dsh-client-ui-slots', '@deepseek-ai/dsh-client-ui-primitives',
  '@deepseek-ai/dsh-client-runtime/client',
];

const out = await build({
  entryPoints: [join(PLUGIN, 'client/index.tsx')],
  bundle: true,
  write: false,
  format: 'cjs',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  external: HOST_PROVIDED,
  tsconfig: join(PLUGIN, 'client/tsconfig.json'),
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'inline',
  logLevel: 'warning',
});
const cjs = out.outputFiles[0].text;
const wrapped = `window.__ModuleLoader__.load({
  id: ${JSON.stringify(ID)},
  factory: (require) => {
    var module = { exports: {} };
    var exports = module.exports;
${cjs}
    return module.exports;
  }
});
`;
writeFileSync(join(PLUGIN, 'lib/client.js'), wrapped);
console.error(`[build] lib/client.js (${(wrapped.length / 1024).toFixed(0)} KiB)`);
