import { ENCRYPTED_COLUMNS } from '../app/encrypted-columns';
import { entities } from '../app/entities';
import { DEFAULT_DATABASE_URL } from '../config/env';
import { loadEncryptor } from '../crypto/encryption';
import { type ColumnRotation, type RotationReport, rotateEncryptedColumns } from '../crypto/rotation';
import { initOrm } from '../db/orm';
import { loadConfigOrExit } from './config';

const place = (c: Pick<ColumnRotation, 'table' | 'column'>) => `${c.table}.${c.column}`;
const counts = (c: ColumnRotation) =>
  `${c.rotated} rotated, ${c.alreadyCurrent} already current, ${c.failed} failed` +
  (c.changedMeanwhile ? `, ${c.changedMeanwhile} changed meanwhile` : '');

/**
 * `npm run rotate-encryption-key`: re-encrypts every stored encrypted value under ENCRYPTION_KEY,
 * reading older values with ENCRYPTION_PREVIOUS_KEYS (docs/operations.md "Rotating the encryption
 * key"). Safe to run while the service runs, and to run again. Exits 0 once no value is left under
 * another key, 1 otherwise (each value that could not be read is named on stderr).
 */
async function main(): Promise<void> {
  const { config, logger } = loadConfigOrExit('rotate-encryption-key');
  const encryptor = loadEncryptor({
    ...config.encryption,
    dataDir: config.dataDir,
    isProduction: config.isProduction,
    logger,
  });
  const orm = await initOrm({ url: config.database.url ?? DEFAULT_DATABASE_URL, poolMax: 2, entities });
  let report: RotationReport;
  try {
    console.log(
      `re-encrypting under key ${encryptor.currentKeyId} ` +
        `(${config.encryption.previousKeys.length} previous key(s) configured)`,
    );
    report = await rotateEncryptedColumns({
      knex: orm.em.getConnection().getKnex(),
      encryptor,
      columns: ENCRYPTED_COLUMNS,
      onBatch: (progress) => console.log(`${place(progress)}: ${counts(progress)}`),
      onFailure: (f) =>
        console.error(`FAILED ${f.table}.${f.column} row ${f.id} (key id ${f.keyId ?? 'none'}): ${f.reason}`),
    });
  } finally {
    await orm.close();
  }
  process.exitCode = printSummary(report) ? 0 : 1;
}

/** Prints the totals and one line per column; true when every value is under the current key. */
function printSummary(report: RotationReport): boolean {
  const total = (key: 'rotated' | 'alreadyCurrent' | 'failed' | 'staleLeft') =>
    report.columns.reduce((sum, c) => sum + c[key], 0);
  console.log('\nsummary:');
  for (const c of report.columns) console.log(`  ${place(c)}: ${counts(c)}, ${c.staleLeft} stale left`);
  console.log(
    `total: ${total('rotated')} rotated, ${total('alreadyCurrent')} already current, ` +
      `${total('failed')} failed, ${total('staleLeft')} stale left`,
  );
  if (total('failed') > 0) {
    console.error(
      `${total('failed')} value(s) could not be read (listed above as FAILED): their key is not in ` +
        'ENCRYPTION_PREVIOUS_KEYS, or they were altered. Add the missing key and run again; until then ' +
        'the service cannot read them either.',
    );
  }
  if (total('staleLeft') > total('failed')) {
    console.error(
      'some values were written under another key during the run: is every API and worker process ' +
        'restarted with the new ENCRYPTION_KEY? Run again once they are.',
    );
  }
  return total('staleLeft') === 0;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
