/**
 * Shows that `npm run lint` refuses what the architecture forbids (docs/architecture.md "Rules the
 * tools enforce"): in a scratch copy of the project, each case below adds one violation, runs
 * `npm run lint` there, and expects it to fail naming the rule. `.ci/run` runs this after the lint.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = process.cwd();
const CASES = [
  {
    rule: 'platform-imports-no-area',
    file: 'src/events/emit.ts',
    add: "import { Persona } from '../personas/persona.entity';\nexport const leak = Persona;\n",
  },
  {
    rule: 'area-imports-area-through-index',
    file: 'src/webhooks/webhooks.service.ts',
    add: "import { Persona as DeepPersona } from '../personas/persona.entity';\nexport const deep = DeepPersona;\n",
  },
  {
    rule: 'noExcessiveLinesPerFunction',
    file: 'src/webhooks/signature.ts',
    add: `export function tooLong(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(85)}  return n;\n}\n`,
  },
  ...['web/src/config.ts', 'src/temporal/schedules.ts', 'workflows/messages.ts'].map((file) => ({
    rule: 'Files over 300 lines',
    file,
    add: Array.from({ length: 310 }, (_, i) => `export const filler${i} = ${i};\n`).join(''),
  })),
];

const scratch = mkdtempSync(join(tmpdir(), 'lint-rules-'));
try {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  for (const file of tracked.filter(Boolean))
    cpSync(join(ROOT, file), join(scratch, file), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'), 'dir');
  // node_modules is a link to the project's: keep its paths as the link's, as in the project itself
  const config = join(scratch, '.dependency-cruiser.cjs');
  writeFileSync(config, `${readFileSync(config, 'utf8')}\nmodule.exports.options.preserveSymlinks = true;\n`);
  execFileSync('git', ['init', '-q'], { cwd: scratch });
  const lint = () => spawnSync('npm', ['run', '-s', 'lint'], { cwd: scratch, encoding: 'utf8' });
  const clean = lint();
  if (clean.status !== 0)
    throw new Error(`lint fails on the unchanged copy:\n${clean.stdout}${clean.stderr}`);
  let failed = 0;
  for (const { rule, file, add } of CASES) {
    const path = join(scratch, file);
    const original = readFileSync(path, 'utf8');
    writeFileSync(path, `${original}${add}`);
    // formatted and its imports sorted as a developer's editor would, so only the rule can refuse it
    spawnSync(join(scratch, 'node_modules/.bin/biome'), ['check', '--write', file], { cwd: scratch });
    const run = lint();
    const output = `${run.stdout}${run.stderr}`;
    const refused = run.status !== 0 && output.includes(rule);
    console.log(`${refused ? 'refused' : 'NOT REFUSED'}: ${rule} (${file})`);
    if (!refused) failed++;
    writeFileSync(path, original);
  }
  if (failed) process.exit(1);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
