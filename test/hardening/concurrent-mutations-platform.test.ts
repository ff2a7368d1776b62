import { raceEveryOperation } from '../support/concurrent-mutations';
import { type McpTestServer, startMcpTestServer } from '../support/mcp-test-server';
import { platformCallCases } from '../support/mutation-cases/platform-calls';
import { type PlatformEnv, platformHookCases } from '../support/mutation-cases/platform-hooks';
import { platformPhoneCases } from '../support/mutation-cases/platform-phone';
import { platformToolCases } from '../support/mutation-cases/platform-tools';
import { type Receiver, startReceiver } from '../support/receiver';
import { newDeveloper, startTestApp, type TestApp } from '../support/test-app';

let env: PlatformEnv;
let app: TestApp;
let receiver: Receiver;
let revocations: Receiver;
let mcp: McpTestServer;
beforeAll(async () => {
  [receiver, revocations, mcp] = await Promise.all([startReceiver(), startReceiver(), startMcpTestServer()]);
  app = await startTestApp({ RATE_LIMITS: 'off' });
  const dev = await newDeveloper(app, 'races');
  env = { app, dev, receiver, revocations, mcp, freshDeveloper: () => newDeveloper(app, 'races-free') };
});
afterAll(async () => {
  await app?.close();
  await Promise.all([receiver?.close(), revocations?.close(), mcp?.close()]);
});

/** Issue 26 "Races on anything unique": the platform API's secrets, webhooks, events, OAuth, MCP servers, tools, activities, phone numbers, calls. */
describe('concurrent identical mutations: platform resources', () => {
  raceEveryOperation(
    { ...platformHookCases, ...platformToolCases, ...platformPhoneCases, ...platformCallCases },
    () => env.app,
    () => env,
  );
});
