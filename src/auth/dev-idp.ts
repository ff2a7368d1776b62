import fs from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { ensurePrivateDir } from '../common/private-files';

/** The local identity provider used in development when AUTH_* are unset. */
export const DEV_ISSUER = 'urn:voice-platform:dev-idp';
export const DEV_AUDIENCE = 'voice-platform-console';
export const DEV_ALGORITHM = 'ES256';

interface DevKeyFile {
  privateJwk: JWK;
  publicJwk: JWK;
}

/** Loads (or creates once) the dev signing key pair kept in the data dir. */
export async function loadDevIdpKeys(dataDir: string): Promise<DevKeyFile> {
  const file = path.join(dataDir, 'dev-idp-key.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as DevKeyFile;
  const { privateKey, publicKey } = await generateKeyPair(DEV_ALGORITHM, { extractable: true });
  const kid = `dev-${Date.now().toString(36)}`;
  const keys: DevKeyFile = {
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: DEV_ALGORITHM, use: 'sig' },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: DEV_ALGORITHM, use: 'sig' },
  };
  ensurePrivateDir(dataDir);
  fs.writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}

/** Signs a development ID token for `email` (subject `dev|<email>`), valid for 12 hours. */
export async function signDevToken(dataDir: string, email: string, ttl = '12h'): Promise<string> {
  // the verifier refuses longer subjects (`dev|` + email, at most 255) and NUL characters
  if (!email || email.length > 250 || email.includes('\u0000')) {
    throw new Error('email must be 1 to 250 characters without NUL characters');
  }
  const { privateJwk } = await loadDevIdpKeys(dataDir);
  const key = await importJWK(privateJwk, DEV_ALGORITHM);
  return new SignJWT({ email, email_verified: true })
    .setProtectedHeader({ alg: DEV_ALGORITHM, kid: privateJwk.kid, typ: 'JWT' })
    .setIssuer(DEV_ISSUER)
    .setAudience(DEV_AUDIENCE)
    .setSubject(`dev|${email.toLowerCase()}`)
    .setIssuedAt()
    .setExpirationTime(ttl)
    .sign(key);
}
