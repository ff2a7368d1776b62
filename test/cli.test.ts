import fs from 'node:fs';
import path from 'node:path';
import { VoicePlatform } from '../sdk/src';
import { buildCli, newConfigHome, runCli, startCli, VP_BIN } from './support/cli';
import { type Receiver, startReceiver } from './support/receiver';
import { type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/**
 * The `vp` CLI (sdk/src/cli, issue 44 item 3), built and run as a child process against a running
 * platform: login and its stored config, trigger, logs tail, and the typed error of a bad key.
 * test/cli-sessions.test.ts runs `vp call` and `vp sessions tail`.
 */
describe('the vp CLI: login, trigger, logs tail', () => {
  let app: TestApp;
  let dev: Developer;
  let client: VoicePlatform;
  let receiver: Receiver;
  let configHome: string;
  let webhookId: string;

  beforeAll(async () => {
    buildCli();
    app = await startTestApp();
    dev = await newDeveloper(app, 'cli');
    client = new VoicePlatform({ apiKey: dev.testKey, baseUrl: app.baseUrl });
    receiver = await startReceiver();
    const webhook = await client.webhooks.create({
      name: 'cli',
      url: receiver.url,
      events: ['session.ended'],
    });
    webhookId = webhook.id;
    configHome = newConfigHome();
  }, 180_000);
  afterAll(async () => {
    await receiver?.close();
    await app?.close();
    if (configHome) fs.rmSync(configHome, { recursive: true, force: true });
  });

  it('prints its help, and each command’s', async () => {
    const overview = await runCli(['--help'], { configHome });
    expect(overview.code).toBe(0);
    for (const command of ['login', 'trigger', 'logs tail', 'sessions tail', 'call']) {
      expect(overview.stdout).toMatch(new RegExp(`^ {2}${command} `, 'm'));
    }
    // the package's bin is the built entry, a script of its own
    const { bin } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'sdk', 'package.json'), 'utf8'));
    expect(path.resolve(__dirname, '..', 'sdk', bin.vp)).toBe(VP_BIN);
    expect(fs.readFileSync(VP_BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(fs.statSync(VP_BIN).mode & 0o111).toBe(0o111);
    const help = await runCli(['logs', 'tail', '--help'], { configHome });
    expect(help).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: vp logs tail') });
    const wrong = await runCli(['trigger'], { configHome });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('vp trigger --help');
  });

  it('logs in with a key read from stdin, stores it 0600, and later commands use it', async () => {
    const login = await runCli(['login', '--base-url', app.baseUrl], {
      configHome,
      input: `${dev.testKey}\n`,
    });
    expect(login.stderr).toBe('');
    expect(login).toMatchObject({ code: 0, stdout: expect.stringContaining(`Logged in to ${app.baseUrl}`) });
    expect(login.stdout).not.toContain(dev.testKey);
    const file = path.join(configHome, 'voice-platform', 'config.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ apiKey: dev.testKey, baseUrl: app.baseUrl });

    // trigger reads the stored login (no VP_* in its environment)
    const before = receiver.requests.length;
    const trigger = await runCli(['trigger', 'session.ended', '--data', '{"turnCount":7}'], { configHome });
    expect(trigger.stderr).toBe('');
    expect(trigger.code).toBe(0);
    const eventId = trigger.stdout.match(/Triggered session\.ended: (evt_\S+)/)?.[1];
    expect(eventId).toBeDefined();
    expect(trigger.stdout).toContain(`Matching webhooks: ${webhookId}`);
    const received = await receiver.waitFor(before + 1, 30_000);
    const event = JSON.parse(received[before]!.rawBody);
    expect(event).toMatchObject({ id: eventId, type: 'session.ended', data: { turnCount: 7 } });
  }, 60_000);

  it('logs tail prints a delivery as it happens, and exits 0 on Ctrl-C', async () => {
    const env = { VP_API_KEY: dev.testKey, VP_BASE_URL: app.baseUrl };
    const tail = startCli(['logs', 'tail', '--interval', '200'], { configHome, env });
    try {
      await tail.waitFor(/Following deliveries of 1 webhook/, 'stderr');
      const { event } = await client.events.trigger({ type: 'session.ended' });
      const line = await tail.waitFor(
        new RegExp(`session\\.ended\\s+${webhookId}\\s+delivered\\s+200\\s+\\d+ms`),
      );
      expect(line[0]).toBeTruthy();
      const deliveries = await client.webhooks.logs.list(webhookId);
      const delivery = deliveries.data.find((d) => d.eventId === event.id)!;
      expect(tail.stdout()).toContain(`${delivery.id}#1`);
      // what was delivered before the tail began is not printed
      expect(tail.stdout().match(/session\.ended/g)).toHaveLength(1);
    } finally {
      tail.child.kill('SIGINT');
    }
    expect(await tail.exited).toBe(0);
  }, 60_000);

  it('a bad API key: the typed error on stderr, exit code 1, nothing stored', async () => {
    const home = newConfigHome();
    const badKey = `pk_test_${'x'.repeat(40)}`;
    const trigger = await runCli(['trigger', 'session.ended'], {
      configHome: home,
      env: { VP_API_KEY: badKey, VP_BASE_URL: app.baseUrl },
    });
    expect(trigger.code).toBe(1);
    expect(trigger.stdout).toBe('');
    expect(trigger.stderr).toMatch(/^vp: UNAUTHORIZED \(HTTP 401\): .+\n {2}requestId: \S+\n$/);

    const login = await runCli(['login', '--api-key', badKey, '--base-url', app.baseUrl], {
      configHome: home,
    });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('UNAUTHORIZED');
    expect(fs.existsSync(path.join(home, 'voice-platform', 'config.json'))).toBe(false);
    fs.rmSync(home, { recursive: true, force: true });
  });
});
