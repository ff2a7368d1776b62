import { readWav } from '../src/outbound/wav';
import { decodeMulaw } from '../src/telephony/audio';
import { RECORDING_CHUNK_MS } from '../src/telephony/recordings/call-recorder';
import {
  deleteExpiredCallRecordings,
  writeRecordingChunk,
} from '../src/telephony/recordings/call-recordings';
import { type CallsBench, startCallsBench, statusCallback } from './support/calls';
import { eventually } from './support/receiver';
import { call, newDeveloper } from './support/test-app';

let bench: CallsBench;
beforeAll(async () => {
  bench = await startCallsBench();
});
afterAll(() => bench?.stop());

const api = (method: string, path: string, key = bench.dev.testKey) =>
  call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: key });
const knex = () => bench.app.ctx.orm.em.getConnection().getKnex();
const CHUNK = (RECORDING_CHUNK_MS * 8000) / 1000;

async function placedCall(): Promise<string> {
  const res = await call(bench.app.baseUrl, 'POST', '/api/v2/developers/calls', {
    token: bench.dev.testKey,
    body: { phoneNumberId: bench.number.id, to: '+14155550123' },
  });
  expect(res.status).toBe(201);
  const id = res.body.data.id;
  // ended at once (the carrier says canceled): the free plan's cap on calls at once leaves room for the next
  const sid = await eventually<string>(
    async () => (await api('GET', `/calls/${id}`)).body.data.carrierCallId ?? undefined,
  );
  await statusCallback(bench, id, { CallSid: sid, CallStatus: 'canceled' });
  await eventually(async () => (await api('GET', `/calls/${id}`)).body.data.status === 'canceled');
  return id;
}

/** The raw bytes of a GET, with its status and content type. */
async function download(path: string, key = bench.dev.testKey) {
  const res = await fetch(`${bench.app.baseUrl}/api/v2/developers${path}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

describe('call recordings (docs/telephony.md "Recordings")', () => {
  it('serves the chunks as one two-channel WAV: the caller left, the agent right, a missing chunk silent', async () => {
    const id = await placedCall();
    expect((await api('GET', `/calls/${id}`)).body.data.recordingUrl).toBeNull();
    expect((await download(`/calls/${id}/recording`)).status).toBe(404);

    const tone = (byte: number, n: number) => Buffer.alloc(n, byte);
    await writeRecordingChunk(knex(), id, { index: 0, caller: tone(0x10, CHUNK), agent: tone(0xff, CHUNK) });
    await writeRecordingChunk(knex(), id, { index: 2, caller: tone(0xff, 800), agent: tone(0x20, 800) });
    // a chunk written again changes nothing
    await writeRecordingChunk(knex(), id, { index: 0, caller: tone(0x33, CHUNK), agent: tone(0x33, CHUNK) });

    const got = (await api('GET', `/calls/${id}`)).body.data;
    expect(got.recordingUrl).toBe(`/api/v2/developers/calls/${id}/recording`);
    const wav = await download(`/calls/${id}/recording`);
    expect(wav.status).toBe(200);
    expect(wav.type).toMatch(/^audio\/wav/);
    const audio = readWav(wav.bytes);
    expect(audio).toMatchObject({ channels: 2, sampleRate: 8000, bitsPerSample: 16 });
    expect(audio.samples.length).toBe((2 * CHUNK + 800) * 2);
    const [callerLevel] = decodeMulaw(Uint8Array.of(0x10));
    const [agentLevel] = decodeMulaw(Uint8Array.of(0x20));
    expect(audio.samples[0]).toBe(callerLevel); // left, in chunk 0
    expect(audio.samples[1]).toBe(0); // right, silent
    expect(audio.samples[2 * CHUNK * 1.5]).toBe(0); // chunk 1 missing: silence
    expect(audio.samples[2 * (2 * CHUNK) + 1]).toBe(agentLevel); // right, in chunk 2
  });

  it("is another account's 404", async () => {
    const id = await placedCall();
    await writeRecordingChunk(knex(), id, {
      index: 0,
      caller: Buffer.alloc(160, 1),
      agent: Buffer.alloc(160, 2),
    });
    const other = await newDeveloper(bench.app);
    expect((await download(`/calls/${id}/recording`, other.testKey)).status).toBe(404);
    expect((await download(`/calls/${id}/recording`)).status).toBe(200);
  });

  it('deletes a recording whole once it is older than the retention', async () => {
    const id = await placedCall();
    for (const index of [0, 1]) {
      await writeRecordingChunk(knex(), id, {
        index,
        caller: Buffer.alloc(160, 1),
        agent: Buffer.alloc(160, 2),
      });
    }
    await knex().raw(
      `update call_recording_chunks set created_at = now() - interval '400 days' where call_id = ? and chunk_index = 0`,
      [id],
    );
    expect(await deleteExpiredCallRecordings(bench.app.ctx)).toBeGreaterThanOrEqual(2);
    expect((await download(`/calls/${id}/recording`)).status).toBe(404);
  });
});
