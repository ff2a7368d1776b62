import { raceEveryOperation } from '../support/concurrent-mutations';
import { type McpTestServer, startMcpTestServer } from '../support/mcp-test-server';
import { type MarketplaceEnv, marketplaceCases } from '../support/mutation-cases/marketplace';
import { marketplaceInstallCases } from '../support/mutation-cases/marketplace-installs';
import { startTestApp } from '../support/test-app';

let env: MarketplaceEnv;
let mcp: McpTestServer;
beforeAll(async () => {
  mcp = await startMcpTestServer();
  // agent sessions' turns run in the run's worker (global setup), with its LLM double
  const app = await startTestApp({
    RATE_LIMITS: 'off',
    LLM_BASE_URL: process.env.VP_TEST_LLM_BASE_URL ?? '',
  });
  env = { app, mcp };
});
afterAll(async () => {
  await env?.app.close();
  await mcp?.close();
});

/** Issue 26 "Races on anything unique": the marketplace API and the operator's marketplace routes. */
describe('concurrent identical mutations: marketplace', () => {
  raceEveryOperation(
    { ...marketplaceCases, ...marketplaceInstallCases },
    () => env.app,
    () => env,
  );
});
