import type { ConsoleAuth } from '../accounts';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { GettingStartedResponse } from './getting-started.schemas';
import { gettingStarted } from './getting-started.service';

/** GET /getting-started on the console root: the overview's checklist for a new account. */
export function mountGettingStartedRoutes(console: ApiRoot<ConsoleAuth>, ctx: AppContext): void {
  console.route({
    method: 'get',
    path: '/getting-started',
    summary: 'The first five minutes, as a checklist',
    description:
      'Key → persona → voice → talk to it → give it a tool → a webhook, each step ticked from the account’s real state (either environment), and the demo MCP server’s URL where `npm start` serves one.',
    success: { description: 'The steps and how many are done', schema: GettingStartedResponse },
    handler: ({ auth }) =>
      gettingStarted(ctx.orm.em.getConnection().getKnex(), auth.account.id, ctx.demoMcpUrl),
  });
}
