import { cachingIdTokenVerifier, type VerifiedIdToken } from '../src/auth/id-token';

/** A verifier double: counts calls per token; `exp` and failures per token are set by the test. */
function fakeVerifier(tokens: Record<string, { exp: number; subject?: string } | Error>) {
  const calls: string[] = [];
  const verify = async (token: string): Promise<VerifiedIdToken> => {
    calls.push(token);
    const known = tokens[token];
    if (!known) throw new Error(`unknown token ${token}`);
    if (known instanceof Error) throw known;
    return {
      identity: { issuer: 'iss', subject: known.subject ?? token, email: `${token}@x` },
      exp: known.exp,
    };
  };
  return { verify, calls };
}

describe('remembered ID-token verifications', () => {
  let now = 1_000_000_000_000; // epoch ms
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000_000_000;
  });

  it('verifies a token once while it is valid', async () => {
    const { verify, calls } = fakeVerifier({ a: { exp: now / 1000 + 300 } });
    const cached = cachingIdTokenVerifier(verify, { now: clock });
    const first = await cached('a');
    now += 10_000;
    expect(await cached('a')).toEqual(first);
    expect(calls).toEqual(['a']);
  });

  it('never uses an entry at or past the token exp: the token is verified again (and refused by the verifier)', async () => {
    const tokens: Record<string, { exp: number } | Error> = { a: { exp: now / 1000 + 30 } };
    const { verify, calls } = fakeVerifier(tokens);
    const cached = cachingIdTokenVerifier(verify, { now: clock });
    await cached('a');
    now += 29_999;
    await cached('a');
    expect(calls).toEqual(['a']);
    now += 1;
    tokens.a = new Error('ID token has expired');
    await expect(cached('a')).rejects.toThrow('expired');
    await expect(cached('a')).rejects.toThrow('expired');
    expect(calls).toEqual(['a', 'a', 'a']);
  });

  it('does not remember a token the verifier accepts past its exp (clock tolerance)', async () => {
    const { verify, calls } = fakeVerifier({ a: { exp: now / 1000 - 2 } });
    const cached = cachingIdTokenVerifier(verify, { now: clock });
    await cached('a');
    await cached('a');
    expect(calls).toEqual(['a', 'a']);
  });

  it('uses an entry for at most maxAgeMs, even when the token lives longer', async () => {
    const { verify, calls } = fakeVerifier({ a: { exp: now / 1000 + 3600 } });
    const cached = cachingIdTokenVerifier(verify, { now: clock, maxAgeMs: 60_000 });
    await cached('a');
    now += 59_999;
    await cached('a');
    now += 1;
    await cached('a');
    expect(calls).toEqual(['a', 'a']);
  });

  it('keys entries by the whole token: another token of the same subject is verified on its own', async () => {
    const { verify, calls } = fakeVerifier({
      a: { exp: now / 1000 + 300, subject: 'same' },
      b: { exp: now / 1000 + 300, subject: 'same' },
      bad: new Error('Invalid ID token'),
    });
    const cached = cachingIdTokenVerifier(verify, { now: clock });
    expect((await cached('a')).subject).toBe('same');
    expect((await cached('b')).subject).toBe('same');
    await expect(cached('bad')).rejects.toThrow('Invalid');
    await expect(cached('bad')).rejects.toThrow('Invalid'); // failures are not remembered
    expect(calls).toEqual(['a', 'b', 'bad', 'bad']);
  });

  it('holds at most maxEntries, dropping the least recently used', async () => {
    const exp = now / 1000 + 300;
    const { verify, calls } = fakeVerifier({ a: { exp }, b: { exp }, c: { exp } });
    const cached = cachingIdTokenVerifier(verify, { now: clock, maxEntries: 2 });
    await cached('a');
    await cached('b');
    await cached('a'); // a is now the most recently used
    await cached('c'); // drops b
    await cached('a');
    await cached('b');
    expect(calls).toEqual(['a', 'b', 'c', 'b']);
  });

  it('hands out copies: a caller changing its identity does not change the remembered one', async () => {
    const { verify } = fakeVerifier({ a: { exp: now / 1000 + 300 } });
    const cached = cachingIdTokenVerifier(verify, { now: clock });
    const first = await cached('a');
    first.subject = 'changed';
    expect((await cached('a')).subject).toBe('a');
  });
});
