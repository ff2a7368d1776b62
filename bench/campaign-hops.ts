import { Connection, Client as TemporalClient } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { Client } from 'pg';
import type { TwilioDouble } from '../test/support/twilio-double';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** An event's time in ms since the epoch. */
const at = (e: HistoryEvent) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;

/** The hops of a freed slot taken again, in order, from the carrier's end to the next call at the carrier. */
const HOPS = [
  'carrier end → completed signal in the call (callback, API, signal)',
  'signal → call workflow task started (dispatch)',
  'call workflow task: the campaign told (signal), or the end recorded and completed',
  'told (or completed) → campaign workflow task started',
  'campaign workflow task: outcome, claim, child started',
  'child start asked → child started (server)',
  'child started → its first workflow task started (dispatch)',
  "child's first workflow task (asks for placing)",
  'placing activity scheduled → started (dispatch)',
  'placing started → call created at the carrier',
] as const;

interface Slot {
  freedBy: string;
  taken: HistoryEvent[];
  wftStarted: HistoryEvent;
  wftCompleted: HistoryEvent;
  childCompleted: HistoryEvent;
}

/**
 * Where a freed slot's time goes, hop by hop, read from the Temporal histories of the campaign and its
 * calls and from the carrier double's clock (same machine): for each campaign workflow task that
 * started a call after a call ended, the first call that ended (the trigger) and the first call it
 * started. Prints each hop's p50 and p95 in ms.
 */
export async function reportHops(opts: {
  temporalAddress: string;
  databaseUrl: string;
  campaignId: string;
  double: TwilioDouble;
}): Promise<void> {
  const connection = await Connection.connect({ address: opts.temporalAddress });
  const client = new TemporalClient({ connection });
  const db = new Client({ connectionString: opts.databaseUrl });
  await db.connect();
  try {
    const carrierOf = await carrierCalls(db, opts.double);
    // every run of the campaign (it continues as new at CAMPAIGN_EVENTS_PER_RUN events)
    const slots: Slot[] = [];
    for await (const run of client.workflow.list({ query: `WorkflowId = '${opts.campaignId}'` })) {
      const events = (await client.workflow.getHandle(opts.campaignId, run.runId).fetchHistory()).events;
      slots.push(...slotsOf(events ?? []));
    }
    const load = { tasks: 0, withStep: 0, busyMs: 0, stepBusyMs: 0, waitMs: 0, firstAt: 0, lastAt: 0 };
    for await (const run of client.workflow.list({ query: `WorkflowId = '${opts.campaignId}'` })) {
      const events = (await client.workflow.getHandle(opts.campaignId, run.runId).fetchHistory()).events;
      addTaskLoad(load, events ?? []);
    }
    printTaskLoad(load);
    slots.splice(150);
    const hops: number[][] = HOPS.map(() => []);
    for (const slot of slots) {
      const ended = carrierOf.get(slot.freedBy);
      const startedId = slot.taken[0]?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      const started = startedId ? carrierOf.get(startedId) : undefined;
      if (!ended?.endedAt || !started || !startedId) continue;
      const freed = (await client.workflow.getHandle(slot.freedBy).fetchHistory()).events ?? [];
      const child = (await client.workflow.getHandle(startedId).fetchHistory()).events ?? [];
      const signal = [...freed].reverse().find((e) => e.workflowExecutionSignaledEventAttributes)!;
      // the call's workflow task that told the campaign (campaignCallEndedSignal), or its completion
      const tellAt = freed.findIndex((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes);
      const done =
        tellAt >= 0
          ? freed
              .slice(0, tellAt)
              .reverse()
              .find((e) => e.workflowTaskCompletedEventAttributes)!
          : freed.find((e) => e.workflowExecutionCompletedEventAttributes)!;
      const lastTaskStarted = freed
        .slice(0, freed.indexOf(done))
        .reverse()
        .find((e) => e.workflowTaskStartedEventAttributes)!;
      const childStarted = child.find((e) => e.workflowExecutionStartedEventAttributes)!;
      const firstTaskStarted = child.find((e) => e.workflowTaskStartedEventAttributes)!;
      const firstTask = child.find((e) => e.workflowTaskCompletedEventAttributes)!;
      const placing = child.find((e) => e.activityTaskStartedEventAttributes)!;
      const marks = [
        ended.endedAt,
        at(signal),
        at(lastTaskStarted),
        at(done),
        at(slot.wftStarted),
        at(slot.wftCompleted),
        at(childStarted),
        at(firstTaskStarted),
        at(firstTask),
        at(placing),
        started.createdAt,
      ];
      for (let i = 1; i < marks.length; i++) hops[i - 1]!.push(marks[i]! - marks[i - 1]!);
    }
    printHops(hops);
  } finally {
    await db.end();
    await connection.close();
  }
}

/** The double's calls by the platform's call id. */
async function carrierCalls(db: Client, double: TwilioDouble) {
  const { rows } = await db.query<{ id: string; carrier_call_id: string | null }>(
    'select id, carrier_call_id from calls',
  );
  const bySid = new Map(double.calls.map((c) => [c.sid, c]));
  return new Map(
    rows.flatMap((r) =>
      r.carrier_call_id && bySid.has(r.carrier_call_id) ? [[r.id, bySid.get(r.carrier_call_id)!]] : [],
    ),
  );
}

/** The campaign's workflow tasks that started calls after calls ended, with the first call each freed and took. */
function slotsOf(events: HistoryEvent[]): Slot[] {
  const slots: Slot[] = [];
  let completedSince: HistoryEvent[] = [];
  const told = new Set<string>(); // calls that signalled their end: their completion frees nothing
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const freed = freedCallId(e);
    if (freed && !told.has(freed)) completedSince.push(e);
    if (freed && e.workflowExecutionSignaledEventAttributes) told.add(freed);
    if (!e.workflowTaskStartedEventAttributes) continue;
    const completed = events.slice(i + 1).find((n) => n.workflowTaskCompletedEventAttributes);
    if (!completed) break;
    const after = events.slice(events.indexOf(completed) + 1);
    const next = after.findIndex((n) => n.workflowTaskScheduledEventAttributes);
    const taken = after
      .slice(0, next < 0 ? after.length : next)
      .filter((n) => n.startChildWorkflowExecutionInitiatedEventAttributes);
    const trigger = completedSince[0];
    const freedBy = trigger && freedCallId(trigger);
    if (trigger && freedBy && taken.length) {
      slots.push({ freedBy, taken, wftStarted: e, wftCompleted: completed, childCompleted: trigger });
    }
    // an end heard by a task that started nothing (its claim a local activity that went on into a
    // later task) frees the slot that a later task takes
    if (taken.length) completedSince = [];
  }
  return slots;
}

/** The call a campaign event says is over: a call's campaignCallEnded signal, or its child completed. */
function freedCallId(e: HistoryEvent): string | undefined {
  const signal = e.workflowExecutionSignaledEventAttributes;
  if (signal?.signalName === 'campaignCallEnded') {
    const data = signal.input?.payloads?.[0]?.data;
    return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { callId: string }).callId : undefined;
  }
  return e.childWorkflowExecutionCompletedEventAttributes?.workflowExecution?.workflowId ?? undefined;
}

function printHops(hops: number[][]): void {
  const q = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  };
  const mean = (xs: number[]) => xs.reduce((n, x) => n + x, 0) / Math.max(1, xs.length);
  console.log(`  a freed slot, hop by hop (${hops[0]?.length ?? 0} slots; p50 / p95 / mean ms):`);
  HOPS.forEach((name, i) => {
    const xs = hops[i]!;
    const cells = [q(xs, 0.5), q(xs, 0.95), mean(xs)].map((v) => v.toFixed(0).padStart(5));
    console.log(`    ${name.padEnd(70)} ${cells.join(' / ')}`);
  });
}

type TaskLoad = {
  tasks: number;
  withStep: number;
  busyMs: number;
  stepBusyMs: number;
  waitMs: number;
  firstAt: number;
  lastAt: number;
};

/** The campaign's workflow tasks: how many, how long each ran, how long each waited to start. */
function addTaskLoad(load: TaskLoad, events: HistoryEvent[]): void {
  let scheduled: HistoryEvent | undefined;
  let started: HistoryEvent | undefined;
  for (const e of events) {
    if (e.workflowTaskScheduledEventAttributes) scheduled = e;
    if (e.workflowTaskStartedEventAttributes) started = e;
    if (!e.workflowTaskCompletedEventAttributes || !started || !scheduled) continue;
    const i = events.indexOf(e);
    const next = events.slice(i + 1).findIndex((n) => n.workflowTaskScheduledEventAttributes);
    const after = events.slice(i + 1, next < 0 ? undefined : i + 1 + next);
    const step = after.some((n) => n.markerRecordedEventAttributes);
    const busy = at(e) - at(started);
    load.tasks++;
    load.busyMs += busy;
    load.waitMs += at(started) - at(scheduled);
    if (step) {
      load.withStep++;
      load.stepBusyMs += busy;
    }
    load.firstAt = Math.min(load.firstAt || Number.POSITIVE_INFINITY, at(scheduled));
    load.lastAt = Math.max(load.lastAt, at(e));
  }
}

function printTaskLoad(load: TaskLoad): void {
  const span = load.lastAt - load.firstAt;
  console.log(
    `  the campaign's workflow tasks: ${load.tasks} (${load.withStep} with a step), busy ${((load.busyMs / Math.max(1, span)) * 100).toFixed(0)} % of ${(span / 1000).toFixed(1)} s; ` +
      `mean ${(load.busyMs / Math.max(1, load.tasks)).toFixed(1)} ms (with a step ${(load.stepBusyMs / Math.max(1, load.withStep)).toFixed(1)} ms), ` +
      `scheduled → started mean ${(load.waitMs / Math.max(1, load.tasks)).toFixed(1)} ms`,
  );
}
