import { Client as PgClient } from 'pg';

interface Row {
  seq: string;
  event_id: string;
  created_at: Date;
  dispatched_at: Date | null;
  webhook_id: string | null;
  delivery_created_at: Date | null;
  workflow_started_at: Date | null;
  first_attempt_at: Date | null;
  status: string | null;
  attempts: number | null;
}

/**
 * The probe's events, each stage in ms after the event was written: fanned out (dispatched), its
 * deliveries' workflows started, their first attempt. What the chaos run prints, so a slow or
 * failed probe says at which stage its event waited.
 */
export async function probeEventTimeline(databaseUrl: string): Promise<string> {
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const { rows } = await pg.query<Row>(
      `select e.payload::jsonb -> 'data' ->> 'seq' as seq, e.id as event_id, e.created_at, e.dispatched_at,
         d.webhook_id, d.created_at as delivery_created_at, d.workflow_started_at, d.status, d.attempts,
         (select min(a.attempted_at) from delivery_attempts a where a.delivery_id = d.id) as first_attempt_at
       from events e left join deliveries d on d.event_id = e.id
       where e.type = 'session.started' and (e.payload::jsonb -> 'data' ->> 'seq')::bigint >= 1000000
       order by e.created_at, d.webhook_id`,
    );
    const after = (from: Date, at: Date | null) => (at ? `${at.getTime() - from.getTime()} ms` : '-');
    return rows
      .map(
        (r) =>
          `probe event ${r.seq} ${r.event_id}: dispatched ${after(r.created_at, r.dispatched_at)}; ` +
          `${r.webhook_id ?? 'no delivery'}: started ${after(r.created_at, r.workflow_started_at)}, ` +
          `first attempt ${after(r.created_at, r.first_attempt_at)}, ${r.status} after ${r.attempts ?? 0}`,
      )
      .join('\n');
  } finally {
    await pg.end();
  }
}
