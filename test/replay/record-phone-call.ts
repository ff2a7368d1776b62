import type { WorkflowHandle } from '@temporalio/client';
import { streamConnectedUpdate } from '../../workflows/messages';
import { startCallsBench, statusCallback } from '../support/calls';
import { call } from '../support/test-app';
import type { ScenarioName } from './histories';

/**
 * An outbound call (`phone-call-answered-completed`): placed through a carrier stub, then signed
 * status callbacks ringing and in-progress, a late ringing (ignored), the media stream's
 * `streamConnected` twice (one session), completed twice (the second ignored). Served by an app
 * and worker of their own (the stub's TWILIO_API_BASE_URL).
 */
export async function recordPhoneCall(
  record: (name: ScenarioName, handle: WorkflowHandle) => Promise<void>,
  stops: (() => Promise<unknown>)[],
): Promise<void> {
  const bench = await startCallsBench();
  stops.push(() => bench.stop());
  const placed = await call(bench.app.baseUrl, 'POST', '/api/v2/developers/calls', {
    token: bench.dev.testKey,
    body: { phoneNumberId: bench.number.id, to: '+14155550150' },
  });
  if (placed.status !== 201) throw new Error(`call: ${JSON.stringify(placed.body)}`);
  const id = placed.body.data.id as string;
  const handle = bench.app.ctx.temporal.workflow.getHandle(id);
  let sid: string | null = null;
  for (let i = 0; i < 200 && !sid; i++) {
    await new Promise((r) => setTimeout(r, 50));
    sid = (
      await bench.app.ctx.orm.em
        .fork()
        .getConnection()
        .execute('select carrier_call_id from calls where id = ?', [id])
    )[0]?.carrier_call_id;
  }
  if (!sid) throw new Error('the call was not placed');
  for (const status of ['ringing', 'in-progress', 'ringing']) {
    await statusCallback(bench, id, { CallSid: sid, CallStatus: status });
  }
  const first = await handle.executeUpdate(streamConnectedUpdate);
  const second = await handle.executeUpdate(streamConnectedUpdate);
  if (first.sessionId !== second.sessionId) throw new Error('two sessions for one call');
  await statusCallback(bench, id, { CallSid: sid, CallStatus: 'completed', CallDuration: '7' });
  await statusCallback(bench, id, { CallSid: sid, CallStatus: 'completed', CallDuration: '7' });
  const ended = await handle.result();
  if (ended.status !== 'completed' || ended.endedReason !== 'completed')
    throw new Error(`phone call: ${JSON.stringify(ended)}`);
  await record('phone-call-answered-completed', handle);
}
