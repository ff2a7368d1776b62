import fs from 'node:fs';

/**
 * The data directory holds keys, the local identity provider's signing key and, in development,
 * Temporal's store with conversation text: only the account that runs the platform may read it.
 * The directory is 0700 (whatever the umask made it), so nothing in it can be reached by others.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

/** A file of the data directory readable by its owner only (0600), created empty when missing. */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  fs.chmodSync(file, 0o600);
}
