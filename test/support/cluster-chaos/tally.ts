import { setTimeout as sleep } from 'node:timers/promises';
import type { Receiver } from '../receiver';
import type { Balancer, SeenAnswer } from './balancer';
import type { LoadLedger } from './load';

/** The chaos run's count: what was acknowledged, what came of it, and every broken promise found. */
export interface ChaosTally {
  turnsAcknowledged: number;
  turnsInDoubt: number;
  eventsAcknowledged: number;
  /** Requests the receivers got (retries included), and how many were a second copy of one event. */
  deliveries: number;
  redeliveries: number;
  executionsAcknowledged: number;
  /** Answers by status (0: a connection that failed). */
  answers: Record<string, number>;
  /** Each broken promise, in words; none is the pass. */
  violations: string[];
}

/** The event of a webhook request: its id and the trigger's sequence number of this run. */
function eventOf(rawBody: string, runId: string): { id: string; seq: number } | undefined {
  const body = JSON.parse(rawBody) as { id: string; data?: { chaosRun?: string; seq?: number } };
  if (body.data?.chaosRun !== runId || typeof body.data.seq !== 'number') return undefined;
  return { id: body.id, seq: body.data.seq };
}

/** Waits until every acknowledged event reached every receiver and every acknowledged execution ended. */
export async function drain(opts: {
  balancer: Balancer;
  ledger: LoadLedger;
  receivers: Receiver[];
  workflowId: string;
  runId: string;
  timeoutMs: number;
}): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  const pending = new Set(opts.ledger.executions.values());
  while (Date.now() < deadline) {
    const everyReceiverHasAll = opts.receivers.every((receiver) => {
      const ids = new Set(receiver.requests.map((r) => eventOf(r.rawBody, opts.runId)?.id));
      return [...opts.ledger.events.values()].every((id) => ids.has(id));
    });
    for (const id of [...pending]) {
      const read = await opts.balancer.send('GET', `/workflows/${opts.workflowId}/executions/${id}`);
      if (read.status === 200 && read.body.data.status !== 'running') pending.delete(id);
    }
    if (everyReceiverHasAll && pending.size === 0) return;
    await sleep(1_000);
  }
}

/** Checks the promises of a chaos run against what the platform recorded and delivered. */
export async function tallyChaos(opts: {
  balancer: Balancer;
  ledger: LoadLedger;
  receivers: Receiver[];
  workflowId: string;
  runId: string;
}): Promise<ChaosTally> {
  const { balancer, ledger } = opts;
  const violations: string[] = [];
  let turnsAcknowledged = 0;
  let turnsInDoubt = 0;
  for (const [sessionId, said] of ledger.turns) {
    turnsAcknowledged += said.acknowledged.length;
    turnsInDoubt += said.inDoubt.length;
    const read = await balancer.send('GET', `/sessions/${sessionId}`);
    const texts = (read.body.data.transcript as { text: string }[]).map((t) => t.text);
    const counts = new Map<string, number>();
    for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1);
    for (const text of said.acknowledged)
      if (counts.get(text) !== 1)
        violations.push(`turn "${text}" acknowledged, recorded ${counts.get(text) ?? 0} times`);
    for (const text of said.inDoubt)
      if ((counts.get(text) ?? 0) > 1)
        violations.push(`turn "${text}" (in doubt) recorded ${counts.get(text)} times`);
    const known = new Set([...said.acknowledged, ...said.inDoubt]);
    for (const text of counts.keys())
      if (!known.has(text)) violations.push(`turn "${text}" recorded, never said`);
  }
  const deliveries = tallyDeliveries(opts, violations);
  for (const [seq, id] of ledger.executions) {
    const read = await balancer.send('GET', `/workflows/${opts.workflowId}/executions/${id}`);
    const execution = read.body?.data;
    if (execution?.status !== 'completed')
      violations.push(`execution ${seq} (${id}) is ${execution?.status ?? read.status}`);
    else if (JSON.stringify(execution.output?.speech) !== JSON.stringify([`Done ${seq}`]))
      violations.push(`execution ${seq} (${id}) said ${JSON.stringify(execution.output?.speech)}`);
  }
  if (ledger.eventsGivenUp.length + ledger.executionsGivenUp.length > 0)
    violations.push(
      `creates never acknowledged after 3 minutes of retries: events ${ledger.eventsGivenUp}, executions ${ledger.executionsGivenUp}`,
    );
  return {
    turnsAcknowledged,
    turnsInDoubt,
    eventsAcknowledged: ledger.events.size,
    ...deliveries,
    executionsAcknowledged: ledger.executions.size,
    answers: countAnswers(balancer.answers, violations),
    violations,
  };
}

/** Each acknowledged event at every receiver, under the one id its trigger was answered with. */
function tallyDeliveries(
  opts: { ledger: LoadLedger; receivers: Receiver[]; runId: string },
  violations: string[],
): { deliveries: number; redeliveries: number } {
  let deliveries = 0;
  let redeliveries = 0;
  opts.receivers.forEach((receiver, r) => {
    const idsBySeq = new Map<number, Map<string, number>>();
    for (const request of receiver.requests) {
      const event = eventOf(request.rawBody, opts.runId);
      if (!event) continue;
      deliveries++;
      const ids = idsBySeq.get(event.seq) ?? new Map<string, number>();
      ids.set(event.id, (ids.get(event.id) ?? 0) + 1);
      idsBySeq.set(event.seq, ids);
    }
    for (const [seq, ids] of idsBySeq) {
      if (ids.size > 1)
        violations.push(`webhook ${r}: trigger ${seq} arrived as ${ids.size} events (${[...ids.keys()]})`);
      for (const copies of ids.values()) redeliveries += copies - 1;
    }
    for (const [seq, id] of opts.ledger.events)
      if (!idsBySeq.get(seq)?.has(id)) violations.push(`webhook ${r}: event ${seq} (${id}) never delivered`);
  });
  return { deliveries, redeliveries };
}

/** Answers by status; a 5xx other than a 503 with Retry-After is a violation. */
function countAnswers(answers: SeenAnswer[], violations: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    counts[a.status] = (counts[a.status] ?? 0) + 1;
    if (a.status >= 500 && !(a.status === 503 && a.retryAfter))
      violations.push(`${a.route} answered ${a.status}${a.retryAfter ? '' : ' without Retry-After'}`);
  }
  return counts;
}
