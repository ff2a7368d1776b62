import http from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createIdTokenVerifier } from '../../src/auth/id-token';
import { loadConfig } from '../../src/config/env';
import { ANSWER_LIMITS } from '../../src/outbound/answer-limits';

const ISSUER = 'https://idp.example.test';
const AUDIENCE = 'voice-console';

/** How an answer of the key server ended: bytes written and whether it got to finish. */
interface Served {
  written: number;
  finished: boolean;
}

/** A JWKS endpoint answering `jwks`, or, with `hostileBytes`, that many bytes as fast as they are read. */
async function keyServer(jwks: object, hostileBytes = 0) {
  const served: Served[] = [];
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (!hostileBytes) return void res.end(JSON.stringify(jwks));
    const chunk = Buffer.alloc(64 * 1024, ' ');
    let written = 0;
    res.on('close', () => served.push({ written, finished: res.writableFinished }));
    res.write('{"keys":[');
    const pump = () => {
      while (written < hostileBytes && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end(']}');
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks`;
  return { url, served, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function signingKey() {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const token = await new SignJWT({ email: 'jwks@example.com' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('idp|jwks')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  return { jwks: { keys: [jwk] }, token };
}

const verifierFor = (jwksUrl: string) =>
  createIdTokenVerifier(
    loadConfig({ AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE, AUTH_JWKS_URL: jwksUrl, DATA_DIR: '/tmp' }),
  );

/**
 * Bounded outbound, the identity provider's keys: the JWKS is read through the same cap as every
 * other outbound answer (ANSWER_LIMITS.identityKeys), so a key endpoint answering without end is
 * cut at the cap and the console answers 503, not a process reading it whole.
 */
describe('the console identity provider signing keys are read within a cap', () => {
  it('verifies a token against an ordinary key set', async () => {
    const { jwks, token } = await signingKey();
    const server = await keyServer(jwks);
    try {
      const verify = await verifierFor(server.url);
      await expect(verify(token)).resolves.toMatchObject({ subject: 'idp|jwks' });
    } finally {
      await server.close();
    }
  });

  it('cuts a key set past its cap: 503 SERVICE_UNAVAILABLE, the connection closed early', async () => {
    const { token } = await signingKey();
    const server = await keyServer({}, 50 * 1024 * 1024);
    try {
      const verify = await verifierFor(server.url);
      await expect(verify(token)).rejects.toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(server.served).toHaveLength(1);
      expect(server.served[0].finished).toBe(false);
      expect(server.served[0].written).toBeLessThan(20 * ANSWER_LIMITS.identityKeys.maxBytes);
    } finally {
      await server.close();
    }
  });
});
