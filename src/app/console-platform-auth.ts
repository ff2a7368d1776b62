import type { Request, Response } from 'express';
import { z } from 'zod';
import { consoleAuthenticator } from '../accounts/console-auth';
import { type PlatformAuth, platformAuthenticator } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { ALL_SCOPES } from '../keys/scopes';

/** The header that names the environment of a console call to the platform API. */
export const CONSOLE_ENVIRONMENT_HEADER = 'x-console-environment';

const ConsoleEnvironment = z.enum(['live', 'test']);

/** A compact JWT (three base64url parts): an ID token, never an API key (`pk_…`). */
const ID_TOKEN = /^Bearer[ ]+[\w-]+\.[\w-]+\.[\w-]+\s*$/i;

/**
 * The platform API's credentials (docs/api-contract.md "API roots and credentials"): an API key,
 * or, for the web console, the signed-in developer's ID token with the environment named in
 * `X-Console-Environment` (a bearer without both is refused as a bad API key: 401). A console call
 * acts for its account with every scope, spends from the console's own budget (never from the
 * budget of the account's keys) and is not counted in the account's API analytics; no API key is
 * ever made for, or kept by, a browser.
 */
export function platformOrConsoleAuthenticator(ctx: AppContext) {
  const byKey = platformAuthenticator(ctx);
  const byIdToken = consoleAuthenticator(ctx);
  return async (req: Request, _res: Response): Promise<PlatformAuth> => {
    // Only a complete console call (an ID token and its environment) is one; anything else is taken
    // for an API key, so it is the API key's 401, which says nothing about console tokens.
    const environment = ConsoleEnvironment.safeParse(req.headers[CONSOLE_ENVIRONMENT_HEADER]);
    if (!environment.success || !ID_TOKEN.test(req.headers.authorization ?? '')) return byKey(req);
    const { account } = await byIdToken(req);
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
