import type { Client as TemporalClient } from '@temporalio/client';
import knexFactory, { type Knex } from 'knex';
import type { Config } from '../src/config/env';
import { EventDispatcher } from '../src/events/dispatcher';
import type { OutboxHandler } from '../src/events/outbox';
import { createLogger } from '../src/logging/logger';
import { createIsolatedDatabase } from './support/isolated-db';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The dispatcher's passes: a notification fans the new events out and runs the start pass of the
 * handlers that wrote rows for them; every handler's start pass (the recovery scans) runs on the poll
 * interval, even while notifications keep coming.
 */
describe('event dispatcher passes', () => {
  let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let knex: Knex;

  beforeAll(async () => {
    db = await createIsolatedDatabase('dispatcher');
    knex = knexFactory({ client: 'pg', connection: db.url, pool: { min: 0, max: 4 } });
    await knex.raw(
      `insert into accounts (id, issuer, subject, plan, created_at, updated_at)
       values ('acct_dispatch', 'test', 'dispatch', 'free', now(), now())`,
    );
  });

  afterAll(async () => {
    await knex?.destroy();
    await db?.drop();
  });

  /** A dispatcher of `handlers` on this suite's database (listening for notifications with `listenUrl`). */
  const dispatcherOf = (handlers: OutboxHandler[], listenUrl?: string) =>
    new EventDispatcher({
      knex,
      temporal: {} as TemporalClient,
      config: {} as Config,
      logger: createLogger('silent'),
      listenUrl,
      handlers,
    });

  it('marks the events no handler wants in one statement, and fans out only the wanted ones', async () => {
    const seen: string[] = [];
    const ended: OutboxHandler = {
      name: 'ended',
      wantsEventSql: `e.type = 'session.ended'`,
      async onEvents(_trx, ids) {
        seen.push(...ids);
        return 0;
      },
    };
    const dispatcher = dispatcherOf([ended]);
    await dispatcher.dispatchOnce();
    for (const [id, type] of [
      ['evt_wants_1', 'tool.called'],
      ['evt_wants_2', 'session.ended'],
      ['evt_wants_3', 'tool.completed'],
    ]) {
      await knex.raw(
        `insert into events (id, account_id, environment, type, payload, created_at)
         values (?, 'acct_dispatch', 'test', ?, '{}', now())`,
        [id, type],
      );
    }
    expect(await dispatcher.dispatchOnce()).toBe(3);
    expect(seen).toEqual(['evt_wants_2']);
    const { rows } = await knex.raw(
      `select count(*)::int as n from events where id like 'evt_wants_%' and dispatched_at is not null`,
    );
    expect(rows[0].n).toBe(3);
    expect(await dispatcher.dispatchOnce()).toBe(0);
  });

  it('starts what a fan-out wrote at once and sweeps every handler on the poll interval', async () => {
    const seen: string[] = [];
    const calls = { writerStarts: 0, recoveryStarts: 0 };
    const writer: OutboxHandler = {
      name: 'writer',
      async onEvents(_trx, ids) {
        seen.push(...ids);
        return ids.length; // as if each event made a row to start
      },
      async startPending() {
        calls.writerStarts++;
        return 0;
      },
    };
    const recovery: OutboxHandler = {
      name: 'recovery',
      async startPending() {
        calls.recoveryStarts++;
        return 0;
      },
    };
    const dispatcher = dispatcherOf([writer, recovery], db.url);
    dispatcher.start();
    try {
      await sleep(300); // the first pass (a sweep) and LISTEN
      const sweepsBefore = calls.recoveryStarts;
      const ids: string[] = [];
      const started = Date.now();
      for (let i = 0; Date.now() - started < 4_500; i++) {
        const id = `evt_dispatch_${i}`;
        ids.push(id);
        await knex.raw(
          `insert into events (id, account_id, environment, type, payload, created_at)
           values (?, 'acct_dispatch', 'test', 'tool.called', '{}', now())`,
          [id],
        );
        await sleep(60);
      }
      const deadline = Date.now() + 5_000;
      while (seen.length < ids.length && Date.now() < deadline) await sleep(50);

      expect(new Set(seen)).toEqual(new Set(ids)); // every event fanned out once
      expect(seen).toHaveLength(ids.length);
      const { rows } = await knex.raw(`select count(*)::int as n from events where dispatched_at is null`);
      expect(rows[0].n).toBe(0);
      // the writer's start pass follows its fan-outs; the recovery scan ran on the poll interval
      // (2 s) while notifications kept coming: twice or three times in 4.5 s, not once per event
      expect(calls.writerStarts).toBeGreaterThanOrEqual(10);
      const sweeps = calls.recoveryStarts - sweepsBefore;
      expect(sweeps).toBeGreaterThanOrEqual(1);
      expect(sweeps).toBeLessThanOrEqual(4);
    } finally {
      await dispatcher.stop();
    }
  });
});
