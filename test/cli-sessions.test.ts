/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import fs from 'node:fs';
import { VoicePlatform } from '../sdk/src';
import { startWorker } from '../src/app/runtime';
import { buildCli, newConfigHome, startCli } from './support/cli';
import { TEST_ENV } from './support/env';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

/**
 * `vp call` and `vp sessions tail` (sdk/src/cli, issue 44 item 3) as child processes against a
 * running platform and worker, whose model is the LLM double (it answers `echo: <what was said>`).
 */
describe('the vp CLI: call and sessions tail', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: LlmDouble;
  let dev: Developer;
  let client: VoicePlatform;
  let personaId: string;
  let configHome: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    buildCli();
    llm = await startLlmDouble();
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-cli-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'cli-sessions');
    client = new VoicePlatform({ apiKey: dev.testKey, baseUrl: app.baseUrl });
    const consoleClient = new VoicePlatform({ apiKey: dev.token, baseUrl: app.baseUrl });
    const persona = await consoleClient.console.personas.create({ manifest: completeManifest('cli-agent') });
    personaId = (persona as { persona: { id: string } }).persona.id;
    configHome = newConfigHome();
    env = { VP_API_KEY: dev.testKey, VP_BASE_URL: app.baseUrl };
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await llm?.close();
    if (configHome) fs.rmSync(configHome, { recursive: true, force: true });
  });

  it('call: sends each line as a turn, prints the streamed reply, and ends the session at EOF', async () => {
    const call = startCli(['call', personaId, '--user', 'cli-caller'], { configHome, env });
    const started = await call.waitFor(/Session (sess_\S+): type a line/, 'stderr');
    const sessionId = started[1]!;
    call.child.stdin.write('Where is my parcel?\n');
    await call.waitFor(/agent: echo: Where is my parcel\?\n/);
    call.child.stdin.write('And my invoice?\n');
    await call.waitFor(/agent: echo: And my invoice\?\n/);
    call.child.stdin.end();
    expect(await call.exited).toBe(0);
    expect(call.stderr()).toContain('Session ended (2 turns)');

    const session = await client.sessions.get(sessionId);
    expect(session).toMatchObject({ status: 'ended', userId: 'cli-caller', personaId });
    expect(session.transcript.map((t) => t.text)).toEqual(['Where is my parcel?', 'And my invoice?']);
    // the greeting is printed first, before any reply
    expect(call.stdout().indexOf(`agent: ${session.greeting}`)).toBe(0);
  }, 90_000);

  it('call: Ctrl-C ends the session and exits 0', async () => {
    const call = startCli(['call', personaId], { configHome, env });
    const started = await call.waitFor(/Session (sess_\S+): type a line/, 'stderr');
    call.child.kill('SIGINT');
    expect(await call.exited).toBe(0);
    expect((await client.sessions.get(started[1]!)).status).toBe('ended');
  }, 60_000);

  it('sessions tail: prints the turns another client takes, and stops when the session ends', async () => {
    const session = await client.sessions.create({ personaId, userId: 'cli-tail' });
    await client.sessions.turns.create(session.id, { text: 'First question' });
    const tail = startCli(['sessions', 'tail', session.id, '--interval', '200'], { configHome, env });
    try {
      await tail.waitFor(/user: {2}First question\nagent: echo: First question\n/);
      await client.sessions.turns.create(session.id, { text: 'Second question' });
      await tail.waitFor(/user: {2}Second question\nagent: echo: Second question\n/);
      await client.sessions.end(session.id);
      expect(await tail.exited).toBe(0);
    } finally {
      tail.child.kill('SIGINT');
    }
    expect(tail.stdout().startsWith(`agent: ${session.greeting}\n`)).toBe(true);
    expect(tail.stderr()).toMatch(/Session ended(: \w+)? \(2 turns\)/);
  }, 60_000);
});
