import type { WorkflowHandle } from '@temporalio/client';
import { contactNumber, startCampaignRig, waitForCampaign } from '../support/campaigns';
import type { ScenarioName } from './histories';

/**
 * A campaign (`campaign-retried-paused-completed`): four contacts at concurrency 2 on a short
 * campaign clock (CAMPAIGN_MINUTE_MS=100), the second busy once then answered after the retry's
 * delay, a pause and a resume under way, then completed. Served by an app and worker of their own
 * (the Twilio double's TWILIO_API_BASE_URL).
 */
export async function recordCampaign(
  record: (name: ScenarioName, handle: WorkflowHandle) => Promise<void>,
  stops: (() => Promise<unknown>)[],
): Promise<void> {
  const rig = await startCampaignRig({ CAMPAIGN_MINUTE_MS: '100' });
  stops.push(() => rig.stop());
  const answer = { outcome: 'answer' as const, ringMs: 50, talkMs: 300, media: 'none' as const };
  rig.double.script(answer);
  rig.double.script([{ outcome: 'busy', ringMs: 50 }, answer], contactNumber(9001));
  const created = await rig.api('POST', '/campaigns', {
    name: 'Recorded',
    phoneNumberId: rig.number.id,
    personaId: rig.personaId,
    contacts: [9000, 9001, 9002, 9003].map((i) => ({ to: contactNumber(i) })),
    concurrency: 2,
    callingHours: { start: '00:00', end: '23:59', timezone: 'UTC' },
    retry: { onBusy: true, onNoAnswer: true, onVoicemail: false, maxAttempts: 2, delayMinutes: 2 },
  });
  if (created.status !== 201) throw new Error(`campaign: ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  const paused = await rig.api('POST', `/campaigns/${id}/pause`);
  if (paused.body.data?.status !== 'paused') throw new Error(`pause: ${JSON.stringify(paused.body)}`);
  await new Promise((r) => setTimeout(r, 500));
  await rig.api('POST', `/campaigns/${id}/resume`);
  const done = await waitForCampaign(rig, id, ['completed'], 60_000);
  if (done.outcomes.answered !== 4 || done.progress.calls !== 5)
    throw new Error(`campaign: ${JSON.stringify(done)}`);
  await record('campaign-retried-paused-completed', rig.app.ctx.temporal.workflow.getHandle(id));
}

/**
 * A campaign run handed calls under way by the one before (`campaign-carried-over`): 16 contacts
 * at concurrency 2, a run continuing as new every 100 events (CAMPAIGN_EVENTS_PER_RUN), recorded is
 * the first run that was handed calls: it hears their ends, claims, and continues as new itself.
 */
export async function recordCarriedCampaign(
  record: (name: ScenarioName, handle: WorkflowHandle) => Promise<void>,
  stops: (() => Promise<unknown>)[],
): Promise<void> {
  const rig = await startCampaignRig({ CAMPAIGN_EVENTS_PER_RUN: '100' });
  stops.push(() => rig.stop());
  rig.double.script({ outcome: 'answer', ringMs: 50, talkMs: 400, media: 'none' });
  const created = await rig.api('POST', '/campaigns', {
    name: 'Carried over',
    phoneNumberId: rig.number.id,
    personaId: rig.personaId,
    contacts: Array.from({ length: 16 }, (_, i) => ({ to: contactNumber(9100 + i) })),
    concurrency: 2,
    callingHours: { start: '00:00', end: '23:59', timezone: 'UTC' },
    retry: { onBusy: false, onNoAnswer: false, onVoicemail: false, maxAttempts: 1, delayMinutes: 1 },
  });
  if (created.status !== 201) throw new Error(`campaign: ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  await waitForCampaign(rig, id, ['completed'], 60_000);
  const temporal = rig.app.ctx.temporal;
  const runs: string[] = [];
  for await (const run of temporal.workflow.list({ query: `WorkflowId = '${id}'` })) runs.push(run.runId);
  for (const runId of runs) {
    const handle = temporal.workflow.getHandle(id, runId);
    const events = (await handle.fetchHistory()).events ?? [];
    const input = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
    const carried = input ? JSON.parse(Buffer.from(input).toString('utf8')).carried?.calls : undefined;
    const continued = events.some((e) => e.workflowExecutionContinuedAsNewEventAttributes);
    if (carried?.length && continued) return record('campaign-carried-over', handle);
  }
  throw new Error(`campaign ${id}: no run was handed calls and continued as new (${runs.length} runs)`);
}
