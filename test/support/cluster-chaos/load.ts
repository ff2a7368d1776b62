import { setTimeout as sleep } from 'node:timers/promises';
import type { Balancer } from './balancer';

/** How much load the chaos run keeps up while the faults happen. */
export interface ChaosLoadPlan {
  /** Live sessions, each taking turns back to back (every other one a tool turn). */
  sessions: number;
  /** Pause between a session's turns, as a caller's. */
  thinkMs: number;
  /** Events triggered per second (each fanned out to every webhook). */
  eventsPerSecond: number;
  /** Voice-workflow executions started per second. */
  executionsPerSecond: number;
}

/** What the load was told: acknowledged requests, and those whose outcome the client never heard. */
export interface LoadLedger {
  /** Per session: the texts of its turns answered 200, and those whose answer never came (a 503, a cut connection). */
  turns: Map<string, { acknowledged: string[]; inDoubt: string[] }>;
  /** Event sequence number → the event's id, for every trigger acknowledged. */
  events: Map<number, string>;
  /** Triggers never acknowledged (given up). */
  eventsGivenUp: number[];
  /** Execution sequence number → the execution's id. */
  executions: Map<number, string>;
  executionsGivenUp: number[];
}

export const newLedger = (): LoadLedger => ({
  turns: new Map(),
  events: new Map(),
  eventsGivenUp: [],
  executions: new Map(),
  executionsGivenUp: [],
});

/** A tool turn's words: the model double calls the tool when it hears "order". */
export const turnText = (session: number, turn: number) =>
  turn % 2 === 1 ? `s${session} t${turn} where is my order` : `s${session} t${turn} hello`;

/**
 * The chaos run's load: `sessions` live sessions taking turns, events triggered and executions
 * started at a steady rate, all through the balancer, until `stop()`; `done` resolves once every loop
 * has ended. Creates are sent with Idempotency-Keys and retried; a turn is not (a conversation's next
 * words are the caller's to choose), so a turn whose answer never came is in doubt, and the next turn
 * is the next text.
 */
export function startLoad(opts: {
  balancer: Balancer;
  plan: ChaosLoadPlan;
  personaId: string;
  workflowId: string;
  ledger: LoadLedger;
  runId: string;
}): { stop(): void; done: Promise<void> } {
  const state = { stopped: false };
  const { balancer, plan, ledger, runId } = opts;
  const sessionLoop = async (n: number) => {
    const session = await balancer.create(
      '/sessions',
      { personaId: opts.personaId, userId: `chaos-${n}` },
      `${runId}-session-${n}`,
    );
    if (!session) throw new Error(`session ${n} was never started`);
    const record = { acknowledged: [] as string[], inDoubt: [] as string[] };
    ledger.turns.set(session.id, record);
    for (let turn = 0; !state.stopped; turn++) {
      const text = turnText(n, turn);
      for (;;) {
        const answer = await balancer.send('POST', `/sessions/${session.id}/turns`, { text });
        if (answer.status === 200) record.acknowledged.push(text);
        else if (answer.status === 409) {
          await sleep(500); // the turn before (in doubt) still holds the session: refused, not said
          if (!state.stopped) continue;
        } else if (answer.status === 0 || answer.status === 503) record.inDoubt.push(text);
        else throw new Error(`turn "${text}": ${answer.status} ${JSON.stringify(answer.body)}`);
        break;
      }
      await sleep(plan.thinkMs);
    }
  };
  const paced = (perSecond: number, send: (seq: number) => Promise<void>) => async () => {
    if (perSecond <= 0) return;
    const inFlight = new Set<Promise<void>>();
    for (let seq = 0; !state.stopped; seq++) {
      const sent = send(seq).finally(() => inFlight.delete(sent));
      inFlight.add(sent);
      await sleep(1000 / perSecond);
    }
    await Promise.all(inFlight);
  };
  const sendEvent = async (seq: number) => {
    const body = { type: 'session.started', data: { chaosRun: runId, seq } };
    const created = await balancer.create('/events/trigger', body, `${runId}-event-${seq}`);
    if (created) ledger.events.set(seq, created.event.id);
    else ledger.eventsGivenUp.push(seq);
  };
  const sendExecution = async (seq: number) => {
    const body = { input: { seq }, wait: false };
    const created = await balancer.create(
      `/workflows/${opts.workflowId}/execute`,
      body,
      `${runId}-exec-${seq}`,
    );
    if (created) ledger.executions.set(seq, created.id);
    else ledger.executionsGivenUp.push(seq);
  };
  const done = Promise.all([
    ...Array.from({ length: plan.sessions }, (_, n) => sessionLoop(n)),
    paced(plan.eventsPerSecond, sendEvent)(),
    paced(plan.executionsPerSecond, sendExecution)(),
  ]).then(() => undefined);
  done.catch(() => (state.stopped = true)); // one loop's failure ends the others; awaited by the caller
  return {
    stop: () => {
      state.stopped = true;
    },
    done,
  };
}
