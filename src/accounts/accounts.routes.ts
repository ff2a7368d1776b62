import type { ApiRoot } from '../http/api-router';
import { MeSchema } from './accounts.schemas';
import type { ConsoleAuth } from './console-auth';

export function mountAccountRoutes(console: ApiRoot<ConsoleAuth>): void {
  console.route({
    method: 'get',
    path: '/me',
    summary: 'The signed-in developer account',
    success: { description: 'The account', schema: MeSchema },
    handler: ({ auth }) => ({
      publisherId: auth.account.id,
      email: auth.account.email ?? null,
      plan: auth.account.plan,
    }),
  });
}
