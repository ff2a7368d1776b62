import { mutatingOperations } from '../support/concurrent-mutations';
import { consoleCases } from '../support/mutation-cases/console';
import { marketplaceCases } from '../support/mutation-cases/marketplace';
import { marketplaceInstallCases } from '../support/mutation-cases/marketplace-installs';
import { platformCallCases } from '../support/mutation-cases/platform-calls';
import { platformCampaignCases } from '../support/mutation-cases/platform-campaigns';
import { platformHookCases } from '../support/mutation-cases/platform-hooks';
import { platformKnowledgeCases } from '../support/mutation-cases/platform-knowledge';
import { platformPhoneCases } from '../support/mutation-cases/platform-phone';
import { platformRunCases } from '../support/mutation-cases/platform-runs';
import { platformToolCases } from '../support/mutation-cases/platform-tools';
import { call, startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 26 "Races on anything unique": every mutating operation the API documents has a race case
 * (the concurrent-mutations-*.test.ts files run them), so a new route without one fails here.
 */
const TABLES = {
  consoleCases,
  platformHookCases,
  platformToolCases,
  platformPhoneCases,
  platformCallCases,
  platformCampaignCases,
  platformKnowledgeCases,
  platformRunCases,
  marketplaceCases,
  marketplaceInstallCases,
};

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

describe('the concurrent-mutation tables', () => {
  it('cover every POST, PUT, PATCH and DELETE of the OpenAPI document, and nothing else', async () => {
    const res = await call(app.baseUrl, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    const documented = mutatingOperations(res.body);
    const covered = Object.values(TABLES).flatMap((table) => Object.keys(table));
    expect(documented.length).toBeGreaterThanOrEqual(61);
    expect(documented.filter((op) => !covered.includes(op))).toEqual([]); // routes without a race case
    expect(covered.filter((op) => !documented.includes(op))).toEqual([]); // cases of no route
    expect(new Set(covered).size).toBe(covered.length); // none in two tables
  });
});
