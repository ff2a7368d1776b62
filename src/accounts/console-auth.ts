import type { Request } from 'express';
import { bearerToken } from '../auth/bearer';
import type { AppContext } from '../common/context';
import type { Plan } from '../config/env';
import { preparedStatement } from '../db/prepared';
import type { Account } from './account.entity';
import { findOrCreateAccount } from './accounts.service';

/** The account fields a console request reads, as stored when the request arrived. */
export type ConsoleAccount = Pick<Account, 'id' | 'issuer' | 'subject' | 'email' | 'plan'>;

export interface ConsoleAuth {
  account: ConsoleAccount;
}

interface AccountRow {
  id: string;
  issuer: string;
  subject: string;
  email: string | null;
  plan: Plan;
}

const ACCOUNT_LOOKUP_SQL =
  'select id, issuer, subject, email, plan from accounts where issuer = $1 and subject = $2';

/**
 * Console v1: a verified ID token (verifications are remembered until the token expires, see
 * id-token.ts); the account is created on first use. The account is read on every request with one
 * named prepared statement (never cached, so a plan change applies to the very next request); its
 * first use, and an email the token changes, go through MikroORM.
 */
export function consoleAuthenticator(ctx: AppContext) {
  const knex = ctx.orm.em.getConnection().getKnex();
  const lookup = preparedStatement<AccountRow>(knex, 'console-auth-account-lookup', ACCOUNT_LOOKUP_SQL);
  return async (req: Request): Promise<ConsoleAuth> => {
    const identity = await ctx.verifyIdToken(bearerToken(req, 'ID token'));
    const [row] = await lookup([identity.issuer, identity.subject]);
    if (row && (!identity.email || identity.email === row.email)) {
      return {
        account: {
          id: row.id,
          issuer: row.issuer,
          subject: row.subject,
          email: row.email ?? undefined,
          plan: row.plan,
        },
      };
    }
    return { account: await findOrCreateAccount(ctx.orm.em, identity, ctx.config.defaultPlan) };
  };
}
