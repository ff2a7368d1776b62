import type { CoreContext } from '../common/context';
import { newId, randomBase62 } from '../common/ids';
import type { Owner } from '../common/owner';

/** How long a key is remembered (Stripe's 24 hours): after that it may be used afresh. */
export const KEY_LIFETIME_HOURS = 24;

/**
 * An in-flight row not renewed for this long was left by a process that died mid-request, and the
 * next request with the same key and body takes it over. The request holding a key renews it every
 * RENEW_CLAIM_EVERY_MS while it runs (an execution that waits may run 120 s), so a client retrying
 * after its API process died is answered within seconds, not after the longest request's time.
 */
export const ABANDONED_AFTER_S = 30;
export const RENEW_CLAIM_EVERY_MS = 5_000;

/** What the first look at a key decided. */
export type Claim =
  /** This request holds the key: run the handler, then complete or release. */
  | { kind: 'claimed'; id: string; claim: string }
  /** The key's first request was answered: send that answer again. */
  | { kind: 'replay'; status: number; body: string }
  /** The key was used with another request (method, path, query or body). */
  | { kind: 'mismatch' }
  /** The key's first request is still running. */
  | { kind: 'in_progress' };

interface KeyRow {
  id: string;
  fingerprint: string;
  claim: string;
  state: 'in_flight' | 'completed';
  status: number | null;
  response_ciphertext: string | null;
  expired: boolean;
  abandoned: boolean;
}

type Deps = Pick<CoreContext, 'orm' | 'encryptor'>;

/** The stored answer is bound to its row, account, environment and key: copied elsewhere it fails to decrypt. */
export const responseAad = (id: string, owner: Owner, key: string) =>
  `idempotency-response:${id}:${owner.accountId}:${owner.environment}:${key}`;

/** A claim that loses every race this many times in a row gives up with "in progress". */
const MAX_CLAIM_ATTEMPTS = 5;

/**
 * The idempotency keys of docs/api-contract.md "Idempotent requests", in PostgreSQL. Every statement
 * commits on its own (no surrounding transaction), so the claim is visible to concurrent requests
 * before the handler starts, and the unique (account, environment, key) lets exactly one of
 * concurrent first requests insert it.
 */
export class IdempotencyKeys {
  constructor(private readonly deps: Deps) {}

  private get connection() {
    return this.deps.orm.em.getConnection();
  }

  async claim(owner: Owner, key: string, fingerprint: string): Promise<Claim> {
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const claim = randomBase62(24);
      const id = newId('idk');
      const inserted = await this.connection.execute<{ id: string }[]>(
        `insert into idempotency_keys (id, account_id, environment, key, fingerprint, claim, state, created_at, updated_at)
           values (?, ?, ?, ?, ?, ?, 'in_flight', now(), now())
           on conflict (account_id, environment, key) do nothing returning id`,
        [id, owner.accountId, owner.environment, key, fingerprint, claim],
      );
      if (inserted.length > 0) return { kind: 'claimed', id, claim };
      const row = await this.find(owner, key);
      if (!row) continue; // released or swept since the insert: insert again
      const decided = this.decide(row, owner, key, fingerprint);
      if (decided) return decided;
      // an expired key, or an abandoned first request with this very body: take the row over
      if (await this.takeOver(row, fingerprint, claim)) return { kind: 'claimed', id: row.id, claim };
    }
    return { kind: 'in_progress' };
  }

  /** The answer to a row that cannot be taken over; undefined when it can be. */
  private decide(row: KeyRow, owner: Owner, key: string, fingerprint: string): Claim | undefined {
    if (row.expired) return undefined;
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.state === 'in_flight') return row.abandoned ? undefined : { kind: 'in_progress' };
    const body = this.deps.encryptor.decrypt(row.response_ciphertext ?? '', responseAad(row.id, owner, key));
    return { kind: 'replay', status: row.status ?? 200, body };
  }

  private async find(owner: Owner, key: string): Promise<KeyRow | undefined> {
    const rows = await this.connection.execute<KeyRow[]>(
      `select id, fingerprint, claim, state, status, response_ciphertext,
              created_at < now() - make_interval(hours => ?) as expired,
              updated_at < now() - make_interval(secs => ?) as abandoned
         from idempotency_keys where account_id = ? and environment = ? and key = ?`,
      [KEY_LIFETIME_HOURS, ABANDONED_AFTER_S, owner.accountId, owner.environment, key],
    );
    return rows[0];
  }

  /** Starts the row afresh under a new claim, unless another request changed it first. */
  private async takeOver(row: KeyRow, fingerprint: string, claim: string): Promise<boolean> {
    const updated = await this.connection.execute<{ id: string }[]>(
      `update idempotency_keys
          set fingerprint = ?, claim = ?, state = 'in_flight', status = null, response_ciphertext = null,
              created_at = now(), updated_at = now()
        where id = ? and claim = ? and state = ? returning id`,
      [fingerprint, claim, row.id, row.claim, row.state],
    );
    return updated.length > 0;
  }

  /** Stores the answer of a claimed key (encrypted) for replay. False when the claim was lost. */
  async complete(
    held: { id: string; claim: string },
    owner: Owner,
    key: string,
    answer: { status: number; body: string },
  ): Promise<boolean> {
    const ciphertext = this.deps.encryptor.encrypt(answer.body, responseAad(held.id, owner, key));
    const updated = await this.connection.execute<{ id: string }[]>(
      `update idempotency_keys set state = 'completed', status = ?, response_ciphertext = ?, updated_at = now()
        where id = ? and claim = ? and state = 'in_flight' returning id`,
      [answer.status, ciphertext, held.id, held.claim],
    );
    return updated.length > 0;
  }

  /** Marks a claimed key's request as still running (see ABANDONED_AFTER_S). False when the claim was lost. */
  async renew(held: { id: string; claim: string }): Promise<boolean> {
    const updated = await this.connection.execute<{ id: string }[]>(
      `update idempotency_keys set updated_at = now() where id = ? and claim = ? and state = 'in_flight' returning id`,
      [held.id, held.claim],
    );
    return updated.length > 0;
  }

  /** Forgets a claimed key whose request failed on the server's side, so a retry runs it again. */
  async release(held: { id: string; claim: string }): Promise<void> {
    await this.connection.execute(
      `delete from idempotency_keys where id = ? and claim = ? and state = 'in_flight'`,
      [held.id, held.claim],
    );
  }
}

/** Deletes keys older than 24 hours (run by the housekeeping schedule); answers how many. */
export async function deleteExpiredIdempotencyKeys(ctx: Pick<CoreContext, 'orm'>): Promise<number> {
  const rows = await ctx.orm.em.getConnection().execute<{ count: string }[]>(
    `with gone as (delete from idempotency_keys where created_at < now() - make_interval(hours => ?) returning 1)
       select count(*) as count from gone`,
    [KEY_LIFETIME_HOURS],
  );
  return Number(rows[0].count);
}
