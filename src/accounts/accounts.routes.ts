import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { AccountSettings, MeSchema, SettingsBody } from './accounts.schemas';
import type { ConsoleAuth } from './console-auth';
import { isReviewer } from './reviewers';
import { accountSettings, updateAccountSettings } from './settings.service';

export function mountAccountRoutes(console: ApiRoot<ConsoleAuth>, ctx: AppContext): void {
  console
    .route({
      method: 'get',
      path: '/me',
      summary: 'The signed-in developer account',
      success: { description: 'The account', schema: MeSchema },
      handler: async ({ auth }) => ({
        publisherId: auth.account.id,
        email: auth.account.email ?? null,
        plan: auth.account.plan,
        reviewer: await isReviewer(ctx.orm.em, auth.account.id),
      }),
    })
    .route({
      method: 'get',
      path: '/settings',
      summary: "The account's settings",
      success: { description: 'The settings', schema: AccountSettings },
      handler: ({ auth }) => accountSettings(ctx.orm.em, auth.account.id),
    })
    .route({
      method: 'patch',
      path: '/settings',
      summary: "Change the account's settings",
      description:
        '`requirePassingTests`: a persona submission whose test suite does not pass is rejected at once (docs/personas.md "Gating the review on tests").',
      body: SettingsBody,
      success: { description: 'The settings as they now are', schema: AccountSettings },
      handler: ({ auth, body }) => updateAccountSettings(ctx.orm.em, auth.account.id, body),
    });
}
