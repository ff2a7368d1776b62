import type { Browser, Page } from '@playwright/test';
import { latencyStats } from './support';

/** What the pages measured need to show: a persona and a 50-node workflow. */
export interface ConsoleSeed {
  personaId: string;
  workflowId: string;
}

async function json(res: Response, what: string): Promise<any> {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A chain of 50 nodes: start, 48 speak nodes, end (the builder's drag is measured on it). */
export function fiftyNodeGraph() {
  const ids = ['start', ...Array.from({ length: 48 }, (_, i) => `say_${i + 1}`), 'end'];
  return {
    nodes: ids.map((id) =>
      id === 'start' || id === 'end'
        ? { id, type: id }
        : { id, type: 'speak', config: { text: `Sentence ${id.slice(4)}.` } },
    ),
    edges: ids.slice(1).map((id, i) => ({ sourceId: ids[i], targetId: id })),
  };
}

/** Seeds the account of `token` through the APIs, as a developer would. */
export async function seedConsole(base: string, token: string): Promise<ConsoleSeed> {
  const auth = (t: string) => ({ authorization: `Bearer ${t}`, 'content-type': 'application/json' });
  const key = (
    await json(
      await fetch(`${base}/api/v1/developers/keys`, {
        method: 'POST',
        headers: auth(token),
        body: JSON.stringify({ name: 'bench', environment: 'live' }),
      }),
      'key',
    )
  ).key.fullKey as string;
  const v2 = async (path: string, body: unknown) =>
    (
      await json(
        await fetch(`${base}/api/v2/developers${path}`, {
          method: 'POST',
          headers: auth(key),
          body: JSON.stringify(body),
        }),
        path,
      )
    ).data;
  const persona = await json(
    await fetch(`${base}/api/v1/developers/personas`, {
      method: 'POST',
      headers: auth(token),
      body: JSON.stringify({ manifest: { identity: { name: 'Bench agent' } } }),
    }),
    'persona',
  );
  const workflow = await v2('/workflows', {
    name: 'Fifty nodes',
    trigger: { type: 'voice_command', config: { command: 'read me fifty sentences' } },
    ...fiftyNodeGraph(),
  });
  return { personaId: persona.persona.id, workflowId: workflow.id };
}

/** Every page of the console with what says it has drawn its content. */
export function consolePages(seed: ConsoleSeed): { name: string; path: string; heading: string | RegExp }[] {
  return [
    { name: 'overview', path: '/console/', heading: 'Overview' },
    { name: 'API keys', path: '/console/keys', heading: 'API keys' },
    { name: 'personas', path: '/console/personas', heading: 'Personas' },
    { name: 'a persona', path: `/console/personas/${seed.personaId}`, heading: /Bench agent|persona_/ },
    { name: 'voices', path: '/console/voices', heading: 'Voices' },
    { name: 'webhooks', path: '/console/webhooks', heading: 'Webhooks' },
    { name: 'workflows', path: '/console/workflows', heading: 'Workflows' },
    { name: 'a workflow (50 nodes)', path: `/console/workflows/${seed.workflowId}`, heading: 'Fifty nodes' },
    {
      name: 'workflow builder (50 nodes)',
      path: `/console/workflows/${seed.workflowId}/edit`,
      heading: 'Edit Fifty nodes',
    },
    { name: 'sessions', path: '/console/sessions', heading: 'Sessions' },
    { name: 'marketplace', path: '/console/marketplace', heading: 'Marketplace' },
    { name: 'marketplace: publish', path: '/console/marketplace/publish', heading: /Publish/ },
    { name: 'tools: MCP servers', path: '/console/tools', heading: 'Tools' },
    { name: 'tools: custom tools', path: '/console/tools?tab=custom', heading: 'Tools' },
    { name: 'tools: secrets', path: '/console/tools?tab=secrets', heading: 'Tools' },
    { name: 'tools: OAuth', path: '/console/tools?tab=oauth', heading: 'Tools' },
    { name: 'activities', path: '/console/activities', heading: 'Activities' },
  ];
}

/** A page's first load in a fresh context: its heading shown and no loader left. */
export async function pageLoad(
  browser: Browser,
  base: string,
  init: string,
  path: string,
  heading: string | RegExp,
) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(init);
  const page = await context.newPage();
  const t0 = performance.now();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}${path}`);
  try {
    await page.getByRole('heading', { level: 1, name: heading }).waitFor({ timeout: 10_000 });
  } catch {
    throw new Error(
      `${path} did not draw its heading: ${errors.join('; ') || ((await page.locator('body').textContent()) ?? '').slice(0, 300)}`,
    );
  }
  await page.waitForFunction(
    () =>
      !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector(
        '[role="status"][aria-label="Loading"]',
      ),
  );
  const elapsed = performance.now() - t0;
  await context.close();
  return elapsed;
}

/** p50/p95 of each page's first load, `runs` cold loads each (after one warm-up). */
export async function measurePages(
  browser: Browser,
  base: string,
  init: string,
  seed: ConsoleSeed,
  runs: number,
) {
  const results: { name: string; p50: number; p95: number }[] = [];
  for (const p of consolePages(seed)) {
    await pageLoad(browser, base, init, p.path, p.heading);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await pageLoad(browser, base, init, p.path, p.heading));
    const s = latencyStats(times);
    results.push({ name: p.name, p50: s.p50, p95: s.p95 });
  }
  return results;
}

/**
 * Frames while a node of the 50-node graph is dragged in the builder for about two seconds (a mouse
 * event every 16 ms): the intervals between animation frames, read with requestAnimationFrame and
 * performance.now() in the page.
 */
export async function measureDrag(browser: Browser, base: string, init: string, workflowId: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(init);
  const page: Page = await context.newPage();
  await page.goto(`${base}/console/workflows/${workflowId}/edit`);
  const node = page.getByTestId('builder-node-say_25');
  await node.waitFor();
  await page.waitForTimeout(500); // the view fitted, fonts drawn
  const box = await node.boundingBox();
  if (!box) throw new Error('the node is not on screen');
  const x0 = box.x + box.width / 2;
  const y0 = box.y + box.height / 2;
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  await page.evaluate(`(() => {
    window.__frames = [];
    const tick = (t) => { window.__frames.push(t); if (window.__frames.length < 100000) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })()`);
  const moves = 120;
  const t0 = Date.now();
  for (let i = 1; i <= moves; i++) {
    const angle = (i / moves) * 4 * Math.PI;
    await page.mouse.move(x0 + 120 * Math.sin(angle), y0 + 60 * (1 - Math.cos(angle)));
    const wait = t0 + i * 16 - Date.now();
    if (wait > 0) await page.waitForTimeout(wait);
  }
  const frames = await page.evaluate<number[]>('window.__frames.slice()');
  await page.mouse.up();
  await context.close();
  const intervals = frames.slice(1).map((t, i) => t - frames[i]);
  const duration = frames[frames.length - 1] - frames[0];
  const sorted = [...intervals].sort((a, b) => a - b);
  return {
    fps: ((frames.length - 1) * 1000) / duration,
    p95Interval: sorted[Math.floor(sorted.length * 0.95)] ?? 0,
    maxInterval: sorted[sorted.length - 1] ?? 0,
    longFrames: intervals.filter((d) => d > 1000 / 60 + 8).length,
    frames: frames.length,
  };
}
