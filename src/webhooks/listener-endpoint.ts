import type { Knex } from 'knex';
import { newId } from '../common/ids';
import type { Owner } from '../common/owner';
import type { Encryptor } from '../crypto/encryption';
import { generateWebhookSecret } from './signature';
import { webhookSecretAad } from './webhook.entity';

/** The name and URL a listener shows in the webhooks list and the delivery log. */
export const LISTENER_NAME = 'vp listen';
export const LISTENER_URL = 'vp-listen://local';

/**
 * Connects the account's listening endpoint to a `vp listen` connection, in one statement: created
 * on the first listen (a `listener` webhook with a new signing secret), else taken over, with the
 * chosen events, enabled, and the task queue of the process holding the socket. Answers its id and,
 * only when it was just created, its secret (stored encrypted; it stays the same across listens).
 */
export async function connectListener(
  knex: Knex,
  encryptor: Encryptor,
  owner: Owner,
  input: { events: string[]; taskQueue: string; connectionId: string },
): Promise<{ webhookId: string; secret: string | null }> {
  const id = newId('wh');
  const secret = generateWebhookSecret();
  const ciphertext = encryptor.encrypt(secret, webhookSecretAad(id, owner.accountId, owner.environment));
  const { rows } = await knex.raw<{ rows: { id: string; created: boolean }[] }>(
    `insert into webhooks (id, account_id, environment, name, url, events, enabled, kind, secret_ciphertext,
       listener_task_queue, listener_connection_id, failing, include_test_runs, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?::text[], true, 'listener', ?, ?, ?, false, false, now(), now())
     on conflict (account_id, environment) where kind = 'listener' do update set
       events = excluded.events, enabled = true, disabled_at = null, disabled_reason = null,
       listener_task_queue = excluded.listener_task_queue,
       listener_connection_id = excluded.listener_connection_id, updated_at = now()
     returning id, (xmax = 0) as created`,
    [
      id,
      owner.accountId,
      owner.environment,
      LISTENER_NAME,
      LISTENER_URL,
      input.events,
      ciphertext,
      input.taskQueue,
      input.connectionId,
    ],
  );
  const row = rows[0]!;
  return { webhookId: row.id, secret: row.created ? secret : null };
}

/**
 * Ends the subscription of a connection that went away: the listener is disabled (no event matches
 * it, so nothing queues for it) unless a newer connection has taken it over.
 */
export async function disconnectListener(knex: Knex, webhookId: string, connectionId: string): Promise<void> {
  await knex.raw(
    `update webhooks set enabled = false, listener_task_queue = null, listener_connection_id = null,
       disabled_at = now(), updated_at = now()
     where id = ? and kind = 'listener' and listener_connection_id = ?`,
    [webhookId, connectionId],
  );
}
