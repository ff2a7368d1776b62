import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../http/errors';
import { Account } from './account.entity';
import type { AccountSettingsView, SettingsUpdate } from './accounts.schemas';

const settingsOf = (a: Account): AccountSettingsView => ({ requirePassingTests: a.requirePassingTests });

async function findAccount(em: EntityManager, accountId: string): Promise<Account> {
  const account = await em.findOne(Account, { id: accountId });
  if (!account) throw notFound('Account');
  return account;
}

/** GET /settings: the account's settings. */
export async function accountSettings(em: EntityManager, accountId: string): Promise<AccountSettingsView> {
  return settingsOf(await findAccount(em, accountId));
}

/** PATCH /settings: changes the fields given (one statement, so identical requests at once agree). */
export async function updateAccountSettings(
  em: EntityManager,
  accountId: string,
  update: SettingsUpdate,
): Promise<AccountSettingsView> {
  await em.nativeUpdate(Account, { id: accountId }, { ...update, updatedAt: new Date() });
  return settingsOf(await findAccount(em.fork(), accountId));
}
