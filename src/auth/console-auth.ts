import type { Request } from 'express';
import type { Account } from '../accounts/account.entity';
import { findOrCreateAccount } from '../accounts/accounts.service';
import type { AppContext } from '../app/context';
import { bearerToken } from './bearer';

export interface ConsoleAuth {
  account: Account;
}

/** Console v1: a verified ID token; the account is created on first use. */
export function consoleAuthenticator(ctx: AppContext) {
  return async (req: Request): Promise<ConsoleAuth> => {
    const identity = await ctx.verifyIdToken(bearerToken(req, 'ID token'));
    return { account: await findOrCreateAccount(ctx.orm.em, identity, ctx.config.defaultPlan) };
  };
}
