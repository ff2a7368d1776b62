/**
 * After the tsc builds (the library twice, then the `vp` CLI into dist/cjs/cli): marks dist/esm as
 * ES modules and dist/cjs as CommonJS, and gives the ES build's relative imports their `.js`
 * extension (Node's ESM resolution needs it; the sources leave it out so the repository's CommonJS
 * tooling reads them as they are). tsc emits nothing for
 * the generated schema.d.ts, so it is copied into both. The CLI's entry (the package's bin; tsc
 * keeps its `#!/usr/bin/env node` line) is made executable, as npm's own install would.
 */
import { chmodSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = new URL('../dist/', import.meta.url).pathname;
writeFileSync(join(dist, 'esm', 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
writeFileSync(join(dist, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
for (const build of ['esm', 'cjs']) {
  copyFileSync(new URL('../src/schema.d.ts', import.meta.url), join(dist, build, 'schema.d.ts'));
}

const relative = /(\bfrom\s+['"]|\bimport\s*\(\s*['"]|\bimport\s+['"])(\.{1,2}\/[^'"]+?)(['"])/g;
for (const name of readdirSync(join(dist, 'esm'))) {
  if (!/\.(js|d\.ts)$/.test(name)) continue;
  const file = join(dist, 'esm', name);
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(relative, (_m, head, spec, tail) =>
    /\.(js|json)$/.test(spec) ? `${head}${spec}${tail}` : `${head}${spec}.js${tail}`,
  );
  if (fixed !== text) writeFileSync(file, fixed);
}

chmodSync(join(dist, 'cjs', 'cli', 'main.js'), 0o755);
