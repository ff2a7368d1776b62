import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from '@playwright/test';
import { createApp } from '../src/app/app';
import { buildContext, closeServer, listen } from '../src/app/runtime';
import { signDevToken } from '../src/auth/dev-idp';
import { loadConfig } from '../src/config/env';
import { consoleDir } from '../src/console-web/serve';
import { ensureDatabaseExists } from '../src/db/orm';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes';
import { measureDrag, measurePages, seedConsole } from './console-pages';
import { benchWorkspace, latencyStats, runBench } from './support';

/**
 * bench:console — the web console's weight and first load, in the system's Chromium:
 * - JavaScript gzipped: all of it, and what a cold first load of the overview fetches (budget 200 KB);
 * - first load on localhost with an empty cache: the sign-in page, and the signed-in overview until
 *   its figures and chart are drawn (budget 1.5 s), p50/p95 over fresh browser contexts;
 * - baseline in the same run: the API's /docs page (Swagger UI, served by the same process) until
 *   its operations are listed;
 * - every page's first load (heading drawn, no loader left; budget 1.5 s each), p50/p95;
 * - the workflow builder while a node of a 50-node graph is dragged: frames a second (target 60).
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const JS_BUDGET_KB = 200;
const PAGE_RUNS = Number(process.env.BENCH_PAGE_RUNS ?? 3);
const LOAD_BUDGET_MS = 1500;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (n: number) => `${n.toFixed(0)} ms`;

/** The gzipped size of each built asset, by file name (the build writes `.gz` beside each). */
function gzippedSizes(dir: string): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const name of fs.readdirSync(path.join(dir, 'assets'))) {
    if (name.endsWith('.gz')) sizes.set(name.slice(0, -3), fs.statSync(path.join(dir, 'assets', name)).size);
  }
  return sizes;
}

/** Loads `url` in a fresh context (empty cache) and waits for `ready`; the time and the scripts fetched. */
async function coldLoad(
  browser: Browser,
  url: string,
  ready: (page: Page) => Promise<void>,
  init?: string,
): Promise<{ ms: number; scripts: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const scripts: string[] = [];
  page.on('response', (res) => {
    if (res.request().resourceType() === 'script') scripts.push(path.basename(new URL(res.url()).pathname));
  });
  const t0 = performance.now();
  await page.goto(url);
  await ready(page);
  const elapsed = performance.now() - t0;
  if (process.env.BENCH_TRACE === '1') {
    const entries = await page.evaluate<{ name: string; start: number; end: number }[]>(
      `performance.getEntriesByType('resource').map((e) => ({ name: e.name.replace(location.origin, ''), start: Math.round(e.startTime), end: Math.round(e.responseEnd) }))`,
    );
    const nav = await page.evaluate<number>(
      `Math.round(performance.getEntriesByType('navigation')[0].responseEnd)`,
    );
    console.log(`  ${url}: document ${nav} ms, ready ${Math.round(elapsed)} ms`);
    for (const e of entries)
      console.log(
        `    ${String(e.start).padStart(5)} → ${String(e.end).padStart(5)}  ${e.name.slice(0, 90)}`,
      );
  }
  await context.close();
  return { ms: elapsed, scripts };
}

async function main(): Promise<void> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  execFileSync('npm', ['run', '-s', 'build:web'], { stdio: 'inherit' });
  const dir = consoleDir();
  const gz = gzippedSizes(dir);
  const allJs = [...gz].filter(([name]) => name.endsWith('.js')).reduce((sum, [, size]) => sum + size, 0);
  const css = [...gz].filter(([name]) => name.endsWith('.css')).reduce((sum, [, size]) => sum + size, 0);

  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({
    logger,
    namespace: 'default',
    searchAttributes: SEARCH_ATTRIBUTES,
  });
  const workspace = benchWorkspace('console');
  const config = loadConfig({
    NODE_ENV: 'test', // no speech threads: the console is measured, not voice previews
    DATABASE_URL: workspace.databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: workspace.dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
  });
  await ensureDatabaseExists(workspace.databaseUrl, logger);
  const ctx = await buildContext(
    config,
    logger,
    { databaseUrl: workspace.databaseUrl, poolMax: 10, temporalAddress: temporal.address },
    { migrate: true, registerSearchAttributes: false },
  );
  const { app } = createApp(ctx);
  const server = await listen(app, '127.0.0.1', 0);
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const token = await signDevToken(workspace.dataDir, 'bench-console@example.com');
    const me = await fetch(`${base}/api/v1/developers/me`, { headers: { authorization: `Bearer ${token}` } });
    if (me.status !== 200) throw new Error(`me: ${me.status}`);
    const exp = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp as number;
    const session = JSON.stringify({
      idToken: token,
      email: 'bench-console@example.com',
      expiresAt: exp * 1000,
    });
    const signedIn = `sessionStorage.setItem('vp.console.session', ${JSON.stringify(session)});`;

    const signInPage = (page: Page) => page.getByRole('button', { name: 'Sign in' }).waitFor();
    const overview = async (page: Page) => {
      await page.getByTestId('value-avgResponseTime').filter({ hasText: /ms$/ }).waitFor();
      await page.locator('.uplot canvas').first().waitFor();
    };
    const docs = (page: Page) => page.locator('.opblock').first().waitFor();

    // one warm-up of each (the server's first requests), then the measured runs, interleaved
    await coldLoad(browser, `${base}/console/`, signInPage);
    await coldLoad(browser, `${base}/console/`, overview, signedIn);
    await coldLoad(browser, `${base}/docs`, docs);
    const times = { signIn: [] as number[], overview: [] as number[], docs: [] as number[] };
    let overviewScripts: string[] = [];
    let signInScripts: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const a = await coldLoad(browser, `${base}/console/`, signInPage);
      times.signIn.push(a.ms);
      signInScripts = a.scripts;
      const b = await coldLoad(browser, `${base}/console/`, overview, signedIn);
      times.overview.push(b.ms);
      overviewScripts = b.scripts;
      times.docs.push((await coldLoad(browser, `${base}/docs`, docs)).ms);
    }
    const jsOf = (scripts: string[]) =>
      [...new Set(scripts)].reduce((sum, name) => sum + (gz.get(name) ?? 0), 0);
    const firstLoadJs = jsOf(overviewScripts);
    const signInJs = jsOf(signInScripts);
    const s = {
      signIn: latencyStats(times.signIn),
      overview: latencyStats(times.overview),
      docs: latencyStats(times.docs),
    };

    console.log(`bench:console (${RUNS} cold loads each, Chromium ${browser.version()}, localhost)`);
    console.log('JavaScript, gzipped:');
    console.log(`  sign-in page first load       ${kb(signInJs)} (${new Set(signInScripts).size} files)`);
    console.log(
      `  overview first load           ${kb(firstLoadJs)} (${new Set(overviewScripts).size} files)  budget ${JS_BUDGET_KB} KB`,
    );
    console.log(`  every page (all chunks)       ${kb(allJs)}   CSS ${kb(css)}`);
    console.log('First load, empty cache (navigation start → content drawn):');
    console.log(`  sign-in page                  p50 ${ms(s.signIn.p50)}  p95 ${ms(s.signIn.p95)}`);
    console.log(
      `  overview, figures and chart   p50 ${ms(s.overview.p50)}  p95 ${ms(s.overview.p95)}  budget ${LOAD_BUDGET_MS} ms`,
    );
    console.log(`  baseline /docs (Swagger UI)   p50 ${ms(s.docs.p50)}  p95 ${ms(s.docs.p95)}`);
    console.log(`  overview / baseline (p50)     ${(s.overview.p50 / s.docs.p50).toFixed(2)}×`);
    const seed = await seedConsole(base, token);
    const pages = await measurePages(browser, base, signedIn, seed, PAGE_RUNS);
    console.log(
      `Every page's first load, empty cache (heading drawn, no loader left; ${PAGE_RUNS} loads each):`,
    );
    for (const p of pages) console.log(`  ${p.name.padEnd(30)} p50 ${ms(p.p50)}  p95 ${ms(p.p95)}`);
    const drag = await measureDrag(browser, base, signedIn, seed.workflowId);
    console.log('Workflow builder, a node of a 50-node graph dragged for 2 s:');
    console.log(
      `  ${drag.fps.toFixed(1)} frames/s over ${drag.frames} frames; frame interval p95 ${drag.p95Interval.toFixed(1)} ms, max ${drag.maxInterval.toFixed(1)} ms; ${drag.longFrames} frames over 24.7 ms`,
    );
    const jsOk = firstLoadJs <= JS_BUDGET_KB * 1024;
    const loadOk = s.overview.p95 <= LOAD_BUDGET_MS && pages.every((p) => p.p95 <= LOAD_BUDGET_MS);
    const fpsOk = drag.fps >= 58 && drag.longFrames === 0;
    console.log(
      `budgets: JavaScript ${jsOk ? 'within' : 'OVER'} ${JS_BUDGET_KB} KB; every first load p95 ${loadOk ? 'within' : 'OVER'} ${LOAD_BUDGET_MS} ms; drag ${fpsOk ? 'at' : 'BELOW'} 60 frames/s`,
    );
  } finally {
    await browser.close();
    await closeServer(server);
    await ctx.close();
    await temporal.stop();
    await workspace.drop();
  }
}

runBench(main);
