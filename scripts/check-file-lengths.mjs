/**
 * Lint: no source file over 300 lines (docs/architecture.md, "Rules the tools enforce"): the
 * server (src/, workflows/, activities/) and the web console. Migrations are generated history and
 * are left out. Function length is Biome's noExcessiveLinesPerFunction (biome.json).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const MAX_LINES = 300;
const ROOTS = ['src', 'workflows', 'activities', 'web/src'];
/** Left out: schema migrations, written once and never edited. */
const EXEMPT = [/^src\/db\/migrations\//];

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) yield* sourceFiles(file);
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts')) yield file;
  }
}

const tooLong = [];
for (const root of ROOTS) {
  for (const file of sourceFiles(root)) {
    if (EXEMPT.some((pattern) => pattern.test(file.replaceAll('\\', '/')))) continue;
    const lines = readFileSync(file, 'utf8').split('\n').length;
    if (lines > MAX_LINES) tooLong.push(`${file}: ${lines} lines (at most ${MAX_LINES})`);
  }
}
if (tooLong.length) {
  console.error(`Files over ${MAX_LINES} lines:\n  ${tooLong.join('\n  ')}`);
  process.exit(1);
}
