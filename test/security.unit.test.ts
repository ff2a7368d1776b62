import { ConnectionException, DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import { identityFromClaims } from '../src/auth/id-token';
import { isDatabaseUnavailable } from '../src/http/database-unavailable';
import { ApiError } from '../src/http/errors';
import { jsonNestingExceeds, nulProblems, parseOrThrow } from '../src/http/validation';

describe('shared validation helpers', () => {
  it('names every string and field name holding NUL, without recursing', () => {
    expect(
      nulProblems({ name: 'a\u0000', tags: ['ok', 'b\u0000'], nested: { deep: '\u0000' } }, 'body'),
    ).toEqual([
      'name: must not contain NUL characters',
      'tags.1: must not contain NUL characters',
      'nested.deep: must not contain NUL characters',
    ]);
    expect(nulProblems('\u0000', 'body')).toEqual(['body: must not contain NUL characters']);
    expect(nulProblems({ 'k\u0000': 1 }, 'query')).toEqual([
      'query: field names must not contain NUL characters',
    ]);
    expect(nulProblems({ a: 'fine', n: 1, b: null }, 'body')).toEqual([]);
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nulProblems(deep, 'body')).toHaveLength(1);
    expect(() => parseOrThrow(z.object({ id: z.string() }), { id: 'a\u0000' }, 'params')).toThrow(
      expect.objectContaining({ status: 400, validationErrors: ['id: must not contain NUL characters'] }),
    );
  });

  it('bounds JSON nesting on the raw bytes, ignoring brackets inside strings', () => {
    const nested = (n: number) => Buffer.from(`${'['.repeat(n)}${']'.repeat(n)}`);
    expect(jsonNestingExceeds(nested(64), 64)).toBe(false);
    expect(jsonNestingExceeds(nested(65), 64)).toBe(true);
    expect(jsonNestingExceeds(nested(1_000_000), 64)).toBe(true);
    expect(jsonNestingExceeds(Buffer.from(JSON.stringify({ s: '[[[[{{{{"\\'.repeat(100) })), 3)).toBe(false);
  });

  it('ID-token claims: bounded strings, exp required, iat not in the future', () => {
    const now = Math.floor(Date.now() / 1000);
    const ok = { iss: 'https://idp', sub: 'user-1', exp: now + 60, iat: now };
    expect(identityFromClaims({ ...ok, email: 'a@example.com' })).toEqual({
      issuer: 'https://idp',
      subject: 'user-1',
      email: 'a@example.com',
    });
    expect(identityFromClaims({ ...ok, email: null }).email).toBeUndefined();
    for (const [claims, message] of [
      [{ ...ok, sub: { $ne: 'x' } }, /sub claim is invalid/],
      [{ ...ok, sub: ['a'] }, /sub claim is invalid/],
      [{ ...ok, sub: 1 }, /sub claim is invalid/],
      [{ ...ok, sub: 'x'.repeat(256) }, /sub claim is invalid/],
      [{ ...ok, sub: undefined }, /sub claim is missing/],
      [{ ...ok, exp: undefined }, /exp claim is missing/],
      [{ ...ok, iat: now + 3600 }, /iat claim is in the future/],
      [{ ...ok, email: 'e'.repeat(321) }, /email claim is invalid/],
      [{ ...ok, email: 5 }, /email claim is invalid/],
    ] as const) {
      expect(() => identityFromClaims(claims)).toThrow(message);
      try {
        identityFromClaims(claims);
      } catch (error) {
        expect((error as ApiError).status).toBe(401);
      }
    }
  });
});

describe('database outage recognition', () => {
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  it('recognises connection failures of pg, knex and MikroORM', () => {
    for (const error of [
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), {
        name: 'KnexTimeoutError',
      }),
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('the database system is starting up', '57P03'),
      withCode('connection failure', '08006'),
      new ConnectionException(new Error('cannot reach the server')),
      new Error('wrapped', { cause: withCode('read ECONNRESET', 'ECONNRESET') }),
      // knex, when the transaction's BEGIN was cut (test/hardening/database-cut-at-begin.test.ts)
      new DriverException(
        new Error('Transaction query already complete, run with DEBUG=knex:tx for more info'),
      ),
    ]) {
      expect([error.message, isDatabaseUnavailable(error)]).toEqual([error.message, true]);
    }
  });

  it('leaves other errors alone', () => {
    for (const error of [
      new Error('something broke'),
      withCode('duplicate key value violates unique constraint', '23505'),
      new UniqueConstraintViolationException(withCode('duplicate key', '23505')),
      new ApiError(400, 'VALIDATION_FAILED', 'Connection terminated'),
      withCode('syntax error', '42601'),
      null,
      'a string',
    ]) {
      expect(isDatabaseUnavailable(error)).toBe(false);
    }
  });
});
