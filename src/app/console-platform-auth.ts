import type { Request, Response } from 'express';
import { z } from 'zod';
import { consoleAuthenticator } from '../accounts/console-auth';
import { type PlatformAuth, platformAuthenticator } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { validationFailed } from '../http/errors';
import { ALL_SCOPES } from '../keys/scopes';

/** The header that names the environment of a console call to the platform API. */
export const CONSOLE_ENVIRONMENT_HEADER = 'x-console-environment';

const ConsoleEnvironment = z.enum(['live', 'test']);

/** A compact JWT (three base64url parts): an ID token, never an API key (`pk_…`). */
const ID_TOKEN = /^Bearer[ ]+[\w-]+\.[\w-]+\.[\w-]+\s*$/i;

/**
 * The platform API's credentials (docs/api-contract.md "API roots and credentials"): an API key,
 * or, for the web console, the signed-in developer's ID token with the environment named in
 * `X-Console-Environment`. A console call acts for its account with every scope, spends from the
 * console's own budget (never from the budget of the account's keys) and is not counted in the
 * account's API analytics; no API key is ever made for, or kept by, a browser.
 */
export function platformOrConsoleAuthenticator(ctx: AppContext) {
  const byKey = platformAuthenticator(ctx);
  const byIdToken = consoleAuthenticator(ctx);
  return async (req: Request, _res: Response): Promise<PlatformAuth> => {
    if (!ID_TOKEN.test(req.headers.authorization ?? '')) return byKey(req);
    const { account } = await byIdToken(req);
    const environment = ConsoleEnvironment.safeParse(req.headers[CONSOLE_ENVIRONMENT_HEADER]);
    if (!environment.success) {
      throw validationFailed(
        [`headers.${CONSOLE_ENVIRONMENT_HEADER}: required with an ID token; "live" or "test"`],
        'A console call to the platform API names its environment',
      );
    }
    return {
      accountId: account.id,
      environment: environment.data,
      keyId: 'console',
      scopes: [...ALL_SCOPES],
      plan: account.plan,
      console: true,
    };
  };
}
