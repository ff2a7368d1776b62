import type { Knex } from 'knex';
import { ciphertextKeyId, DecryptionError, type Encryptor } from './encryption';

/**
 * One encrypted column: where it is and how the additional authenticated data of a value is made
 * from its row. The list of every such column lives at the composition root
 * (src/app/encrypted-columns.ts): this platform module knows no area.
 */
export interface EncryptedColumn {
  table: string;
  /** The row's primary key; rows are visited in its order (keyset pagination, so a run never skips one). */
  key: string;
  column: string;
  /** The columns `aad` reads besides `key`. */
  aadColumns: readonly string[];
  aad(row: Readonly<Record<string, string>>): string;
}

/** A value that could not be re-encrypted: named by its place and key id, never by its content. */
export interface RotationFailure {
  table: string;
  column: string;
  id: string;
  keyId: string | undefined;
  reason: string;
}

/** What a run did to one column (so far, while it runs). */
export interface ColumnRotation {
  table: string;
  column: string;
  rotated: number;
  alreadyCurrent: number;
  /** Changed by another writer between our read and our write: that writer's value stands. */
  changedMeanwhile: number;
  failed: number;
  /** Values not under the current key when the column was done (failures, or writes by a process on an old key). */
  staleLeft: number;
}

export interface RotationReport {
  columns: ColumnRotation[];
  failures: RotationFailure[];
}

export const ROTATION_BATCH_SIZE = 200;

export interface RotationOptions {
  knex: Knex;
  encryptor: Encryptor;
  columns: readonly EncryptedColumn[];
  batchSize?: number;
  /** After every batch of a column, with its counts so far. */
  onBatch?: (progress: ColumnRotation) => void;
  onFailure?: (failure: RotationFailure) => void;
}

/**
 * Re-encrypts every value of every column that is not under the current key (Encryptor.isStale)
 * with the current key, in batches. A value is only ever replaced by itself re-encrypted, and only
 * if it is still the value that was read (compare-and-set), so a write by the running service is
 * never overwritten; an interrupted run leaves each value under either its old key or the new one,
 * both readable, and running again continues with what is still stale. A value that cannot be
 * decrypted (its key is not configured, or it fails authentication) is reported and left as it is;
 * the other values go on.
 */
export async function rotateEncryptedColumns(opts: RotationOptions): Promise<RotationReport> {
  const report: RotationReport = { columns: [], failures: [] };
  for (const spec of opts.columns) {
    report.columns.push(
      await rotateColumn(opts, spec, (failure) => {
        report.failures.push(failure);
        opts.onFailure?.(failure);
      }),
    );
  }
  return report;
}

async function rotateColumn(
  opts: RotationOptions,
  spec: EncryptedColumn,
  fail: (failure: RotationFailure) => void,
): Promise<ColumnRotation> {
  const { knex, encryptor } = opts;
  const batchSize = opts.batchSize ?? ROTATION_BATCH_SIZE;
  const counts: ColumnRotation = {
    table: spec.table,
    column: spec.column,
    rotated: 0,
    alreadyCurrent: 0,
    changedMeanwhile: 0,
    failed: 0,
    staleLeft: 0,
  };
  let after = '';
  for (;;) {
    const rows = await readBatch(knex, spec, after, batchSize);
    if (rows.length === 0) break;
    after = rows[rows.length - 1][spec.key];
    const updates: Reencrypted[] = [];
    for (const row of rows) {
      const value = row[spec.column];
      if (!encryptor.isStale(value)) {
        counts.alreadyCurrent += 1;
        continue;
      }
      try {
        const aad = spec.aad(row);
        updates.push({
          id: row[spec.key],
          old: value,
          next: encryptor.encrypt(encryptor.decrypt(value, aad), aad),
        });
      } catch (error) {
        if (!(error instanceof DecryptionError)) throw error;
        counts.failed += 1;
        const keyId = ciphertextKeyId(value);
        fail({ table: spec.table, column: spec.column, id: row[spec.key], keyId, reason: error.message });
      }
    }
    const written = await writeBatch(knex, spec, updates);
    counts.rotated += written;
    counts.changedMeanwhile += updates.length - written;
    opts.onBatch?.({ ...counts });
    if (rows.length < batchSize) break;
  }
  counts.staleLeft = await countStale(knex, spec, encryptor.currentKeyId);
  return counts;
}

interface Reencrypted {
  id: string;
  old: string;
  next: string;
}

/** The next rows with a value, after `after` in key order: the key, the value and what its AAD reads. */
async function readBatch(
  knex: Knex,
  spec: EncryptedColumn,
  after: string,
  limit: number,
): Promise<Record<string, string>[]> {
  const columns = [...new Set([spec.key, spec.column, ...spec.aadColumns])];
  const result = await knex.raw(
    `select ${columns.map(() => '??').join(', ')} from ?? where ?? > ? and ?? is not null order by ?? limit ?`,
    [...columns, spec.table, spec.key, after, spec.column, spec.key, limit],
  );
  return result.rows;
}

/**
 * One statement (so one transaction) for the batch: each value is replaced only where the row still
 * holds the value read, so a concurrent write by the API wins. Returns how many were replaced.
 */
async function writeBatch(knex: Knex, spec: EncryptedColumn, updates: Reencrypted[]): Promise<number> {
  if (updates.length === 0) return 0;
  const result = await knex.raw(
    `update ?? as t set ?? = v.next
     from (values ${updates.map(() => '(?, ?, ?)').join(', ')}) as v(id, old, next)
     where ?? = v.id and ?? = v.old`,
    [
      spec.table,
      spec.column,
      ...updates.flatMap((u) => [u.id, u.old, u.next]),
      `t.${spec.key}`,
      `t.${spec.column}`,
    ],
  );
  return result.rowCount ?? 0;
}

async function countStale(knex: Knex, spec: EncryptedColumn, currentKeyId: string): Promise<number> {
  const result = await knex.raw(
    `select count(*)::int as n from ?? where ?? is not null and split_part(??, '.', 2) <> ?`,
    [spec.table, spec.column, spec.column, currentKeyId],
  );
  return result.rows[0].n;
}
