/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */

import type { ChildProcess } from 'node:child_process';
import { resamplePcm16 } from '../src/outbound/wav';
import { addNumber } from './support/calls';
import { TEST_ENV } from './support/env';
import { speakWithEspeak } from './support/espeak-speech';
import { createIsolatedDatabase } from './support/isolated-db';
import { startLlmDouble } from './support/llm-double';
import { eventually } from './support/receiver';
import { spawnWorker, stopProcess, workerProcessEnv } from './support/resilience';
import { startSttDouble } from './support/stt-double';
import { call, newDeveloper, startTestApp } from './support/test-app';
import { startTwilioDouble } from './support/twilio-double';

/**
 * A worker killed in the middle of a phone call (issue 39): the call's workflow, its session's and
 * the turns' activities run in a worker process that is SIGKILLed after the greeting and replaced.
 * The call goes on: the caller's question is answered and recorded once, the hang-up ends the call
 * once, and `call.started` and `call.ended` are each emitted once.
 */
describe('a worker killed mid-call', () => {
  it('one call, each turn recorded once, one call.started and one call.ended', async () => {
    const label = 'phonekill';
    const db = await createIsolatedDatabase(label);
    const double = await startTwilioDouble();
    const llm = await startLlmDouble();
    const stt = await startSttDouble({ transcript: 'Where is my parcel?', delayMs: 50 });
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
      TEMPORAL_TASK_QUEUE: `vp-${label}-${process.pid}`,
      LLM_BASE_URL: llm.baseUrl,
      STT_BASE_URL: stt.baseUrl,
      TWILIO_API_BASE_URL: double.baseUrl,
    };
    const app = await startTestApp({ ...env, RATE_LIMITS: 'off' });
    // PUBLIC_URL is where Twilio reaches the API: its address is known once it listens
    (app.ctx.config as { publicUrl?: string }).publicUrl = app.baseUrl;
    const workerEnv = workerProcessEnv({ ...env, PUBLIC_URL: app.baseUrl }, label);
    let first: ChildProcess | undefined = spawnWorker(workerEnv);
    let second: ChildProcess | undefined;
    try {
      const dev = await newDeveloper(app, label);
      const number = await addNumber(app, dev, double);
      const api = async (path: string) =>
        (await call(app.baseUrl, 'GET', `/api/v2/developers${path}`, { token: dev.testKey })).body.data;
      const pn = await api(`/phone-numbers/${number.id}`);
      const ringing = await double.dial(pn.inboundUrl, {
        from: '+15551230002',
        to: pn.number,
        statusCallback: pn.statusCallbackUrl,
      });
      const stream = await ringing.waitForStream(30_000);
      await eventually(async () => stream.received.marks.length > 0 && stream.bufferedMs === 0, 60_000);
      const [inbound] = await api('/calls?direction=inbound');
      expect(inbound).toMatchObject({ status: 'in-progress', sessionId: expect.stringMatching(/^sess_/) });

      // the worker dies; the next one takes the call's workflow, its session's and the turns' work
      await stopProcess(first, 'SIGKILL');
      first = undefined;
      second = spawnWorker(workerEnv);

      const speech = await speakWithEspeak('Where is my parcel?');
      await stream.say(resamplePcm16(speech.pcm16, speech.sampleRate, 8000));
      await eventually(
        async () => (await api(`/sessions/${inbound.sessionId}`)).transcript.length === 1,
        90_000,
      );
      await ringing.hangUp();
      await eventually(async () => (await api(`/calls/${inbound.id}`)).status === 'completed', 60_000);
      await eventually(async () => (await api(`/sessions/${inbound.sessionId}`)).status === 'ended', 60_000);

      const sql = app.ctx.orm.em.fork().getConnection();
      const turns = await sql.execute('select index, text from session_turns where session_id = ?', [
        inbound.sessionId,
      ]);
      expect(turns).toEqual([{ index: 1, text: 'Where is my parcel?' }]);
      const calls = await sql.execute('select id from calls');
      expect(calls).toEqual([{ id: inbound.id }]);
      const events = await sql.execute(
        `select type, count(*)::int as n from events where type like 'call.%' group by type order by type`,
      );
      expect(events).toEqual([
        { type: 'call.ended', n: 1 },
        { type: 'call.started', n: 1 },
      ]);
    } finally {
      await stopProcess(first, 'SIGKILL');
      await stopProcess(second, 'SIGTERM');
      await app.close();
      await double.close();
      await llm.close();
      await stt.close();
      await db.drop();
    }
  }, 300_000);
});
