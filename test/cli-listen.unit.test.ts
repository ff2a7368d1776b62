import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  buildCli,
  LISTEN_KEY_WITHOUT_SCOPE,
  type ListenDouble,
  newConfigHome,
  runCli,
  startCli,
  startListenDouble,
} from './support/cli';

/**
 * `vp listen` (sdk/src/cli/listen.ts, issue 44), built and run as a child process against a double
 * of the platform's listen protocol (docs/cli.md "vp listen") and a local HTTP server it forwards to.
 */

const API_KEY = 'pk_test_listen_double_key';
const SECRET = 'whsec_listen_double_secret';

/** The local server `--forward-to` points at: records each request; `x-test-status`/`x-test-delay-ms` steer its answer. */
interface LocalRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function startLocalServer(): Promise<{
  url: string;
  requests: LocalRequest[];
  close(): Promise<void>;
}> {
  const requests: LocalRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = Number(req.headers['x-test-status'] ?? 200);
      const answer = () => res.writeHead(status, { 'content-type': 'text/plain' }).end(`answered ${status}`);
      setTimeout(answer, Number(req.headers['x-test-delay-ms'] ?? 0));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback URL nothing listens on. */
async function unreachableUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/webhooks`;
}

const delivery = (id: string, eventType: string, body: string, extra: Record<string, string> = {}) => ({
  type: 'delivery',
  deliveryId: `del_${id}`,
  attempt: 1,
  eventId: `evt_${id}`,
  eventType,
  headers: {
    'content-type': 'application/json',
    'x-service-signature': `v1=signature_of_${id}`,
    'x-service-timestamp': '1795000000',
    'x-service-event': eventType,
    ...extra,
  },
  body,
});

describe('vp listen', () => {
  let double: ListenDouble;
  let local: Awaited<ReturnType<typeof startLocalServer>>;
  let configHome: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    buildCli();
    double = await startListenDouble(API_KEY);
    local = await startLocalServer();
    configHome = newConfigHome();
    env = { VP_API_KEY: API_KEY, VP_BASE_URL: double.baseUrl };
  }, 180_000);
  afterAll(async () => {
    await double?.close();
    await local?.close();
    if (configHome) fs.rmSync(configHome, { recursive: true, force: true });
  });

  it('is listed with its help; --forward-to is required', async () => {
    const overview = await runCli(['--help'], { configHome });
    expect(overview.stdout).toMatch(/^ {2}listen /m);
    const help = await runCli(['listen', '--help'], { configHome });
    expect(help).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('Usage: vp listen --forward-to URL'),
    });
    const missing = await runCli(['listen'], { configHome, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Missing --forward-to');
  });

  it('prints a refused upgrade as the typed error and exits 1', async () => {
    const refused = await runCli(['listen', '--forward-to', local.url], {
      configHome,
      env: { ...env, VP_API_KEY: 'pk_test_wrong' },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('vp: UNAUTHORIZED (HTTP 401): Invalid API key');
    expect(refused.stderr).toContain('requestId: req_double');
    // the flat error body (`error` a string, `code` beside it) of the platform's own refusals
    const forbidden = await runCli(['listen', '--forward-to', local.url], {
      configHome,
      env: { ...env, VP_API_KEY: LISTEN_KEY_WITHOUT_SCOPE },
    });
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain('vp: FORBIDDEN (HTTP 403): This key lacks the webhooks:write scope');
    expect(forbidden.stderr).toContain('requestId: req_flat');
  });

  it('stores the secret 0600, forwards deliveries concurrently and answers them; Ctrl-C closes with 1000', async () => {
    const cli = startCli(['listen', '--forward-to', local.url, '--events', 'session.started,session.ended'], {
      configHome,
      env,
    });
    const connection = await double.nextConnection();
    expect(connection.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(connection.url.pathname).toBe('/api/v2/developers/webhooks/listen');
    expect(connection.url.searchParams.get('events')).toBe('session.started,session.ended');
    connection.send({
      type: 'listen.ready',
      webhookId: 'wh_listen',
      events: ['session.started'],
      secret: SECRET,
    });
    await cli.waitFor(/Ready! Your webhook signing secret is whsec_listen_double_secret \(\^C to quit\)/);
    const file = path.join(configHome, 'voice-platform', 'config.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      listenSecrets: { [double.baseUrl]: { wh_listen: SECRET } },
    });

    // a slow delivery, then one the local server fails: the second is answered first
    const slowBody = '{"id":"evt_slow",  "type":"session.started", "data":{"caller":"Zoë ☎"}}';
    const failBody = '{"id":"evt_fail","type":"session.ended","data":{}}';
    const slow = delivery('slow', 'session.started', slowBody, { 'x-test-delay-ms': '1500' });
    const fail = delivery('fail', 'session.ended', failBody, { 'x-test-status': '500' });
    connection.send(slow);
    connection.send(fail);
    connection.send({ type: 'error', code: 'DELIVERY_EXPIRED', message: 'an answer came too late' });
    const first = await connection.next('delivery.answer');
    const second = await connection.next('delivery.answer');
    expect(first).toMatchObject({ deliveryId: 'del_fail', attempt: 1, status: 500, body: 'answered 500' });
    expect(second).toMatchObject({ deliveryId: 'del_slow', attempt: 1, status: 200, body: 'answered 200' });
    expect(second.latencyMs).toBeGreaterThanOrEqual(1400);
    expect(first).not.toHaveProperty('error');

    const received = local.requests.find((request) => request.body === slowBody);
    expect(received).toBeDefined(); // byte for byte
    for (const [name, value] of Object.entries(slow.headers)) expect(received!.headers[name]).toBe(value);
    expect(local.requests.find((request) => request.body === failBody)).toBeDefined();
    await cli.waitFor(/session\.started\s+evt_slow {2}--> 200 {2}\d+ms/);
    expect(cli.stdout()).toMatch(/session\.ended\s+evt_fail {2}--> 500 {2}\d+ms/);
    expect(cli.stderr()).toContain('vp: DELIVERY_EXPIRED: an answer came too late');

    cli.child.kill('SIGINT');
    expect(await connection.closed).toBe(1000);
    expect(await cli.exited).toBe(0);
  });

  it('shows the stored secret when the platform gives none; an unreachable local server is an error answer; 4001 exits 1', async () => {
    const cli = startCli(['listen', '--forward-to', await unreachableUrl()], { configHome, env });
    const connection = await double.nextConnection();
    expect(connection.url.searchParams.has('events')).toBe(false);
    connection.send({ type: 'listen.ready', webhookId: 'wh_listen', events: [], secret: null });
    await cli.waitFor(/Ready! Your webhook signing secret is whsec_listen_double_secret/);
    connection.send(delivery('lost', 'session.started', '{"id":"evt_lost"}'));
    const answer = await connection.next('delivery.answer');
    expect(answer).toMatchObject({
      deliveryId: 'del_lost',
      attempt: 1,
      error: expect.stringContaining('ECONNREFUSED'),
    });
    expect(answer).not.toHaveProperty('status');
    expect(typeof answer.latencyMs).toBe('number');
    await cli.waitFor(/evt_lost {2}--> error: connect ECONNREFUSED/);

    connection.socket.close(4001, 'another vp listen took over');
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain('another `vp listen` for this account took over');
  });

  it('--print-secret prints the secret only, and says so when none is stored', async () => {
    const printing = runCli(['listen', '--print-secret'], { configHome, env });
    const connection = await double.nextConnection();
    connection.send({ type: 'listen.ready', webhookId: 'wh_listen', events: [], secret: null });
    expect(await printing).toMatchObject({ code: 0, stdout: `${SECRET}\n` });
    expect(await connection.closed).toBe(1000);

    const unknown = runCli(['listen', '--print-secret'], { configHome, env });
    (await double.nextConnection()).send({
      type: 'listen.ready',
      webhookId: 'wh_other',
      events: [],
      secret: null,
    });
    const result = await unknown;
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain('cannot be shown again');
  });

  it('reconnects when the platform goes away (1001) or the connection is cut (1006), with the stored secret', async () => {
    const cli = startCli(['listen', '--forward-to', local.url], { configHome, env });
    const first = await double.nextConnection();
    first.send({ type: 'listen.ready', webhookId: 'wh_listen', events: [], secret: null });
    await cli.waitFor(/Ready!/);
    first.socket.close(1001, 'restarting');
    await cli.waitFor(/going away \(code 1001: restarting\); reconnecting…/, 'stderr');
    const second = await double.nextConnection();
    expect(second.headers.authorization).toBe(`Bearer ${API_KEY}`);
    second.send({ type: 'listen.ready', webhookId: 'wh_listen', events: [], secret: null });
    await cli.waitFor(/Ready![\s\S]*Ready! Your webhook signing secret is whsec_listen_double_secret/);
    // a cut connection (no close frame: 1006) is reconnected too
    second.socket.terminate();
    await cli.waitFor(/the connection was cut \(code 1006\); reconnecting…/, 'stderr');
    const third = await double.nextConnection();
    third.send({ type: 'listen.ready', webhookId: 'wh_listen', events: [], secret: null });
    await cli.waitFor(/(Ready! Your webhook signing secret is whsec_listen_double_secret[\s\S]*){3}/);
    cli.child.kill('SIGINT');
    expect(await third.closed).toBe(1000);
    expect(await cli.exited).toBe(0);
  });
});
