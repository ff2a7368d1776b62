import { placeCallOnce } from '../src/telephony/calls/call-steps';
import { type CallsBench, startCallsBench } from './support/calls';
import { eventually } from './support/receiver';
import { call } from './support/test-app';

let bench: CallsBench;
beforeAll(async () => {
  bench = await startCallsBench();
});
afterAll(async () => {
  await bench?.stop();
});

const api = (method: string, path: string, body?: unknown) =>
  call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: bench.dev.testKey, body });

const callOf = async (id: string) => (await api('GET', `/calls/${id}`)).body.data;

const reaches = (id: string, status: string, timeoutMs?: number) =>
  eventually(async () => {
    const c = await callOf(id);
    return c.status === status ? c : undefined;
  }, timeoutMs);

/**
 * Placing an outbound call at most once (docs/telephony.md "At most once"): an unknown outcome is
 * never asked again; a request that never left is tried again until the carrier can be reached,
 * unless the call was hung up meanwhile.
 */
describe('placing a call', () => {
  it('places a call at most once: an unknown outcome is never retried, and without a callback it fails', async () => {
    bench.stub.mode = 'stall';
    try {
      const before = bench.stub.placed.length;
      const res = await api('POST', '/calls', { phoneNumberId: bench.number.id, to: '+14155550143' });
      const id = res.body.data.id as string;
      await eventually(async () => bench.stub.placed.length === before + 1);
      // a retried placing step (the first one's answer lost) asks the carrier nothing
      expect(await placeCallOnce(bench.app.ctx, { callId: id })).toMatchObject({ outcome: 'unknown' });
      const ended = await reaches(id, 'failed');
      expect(ended.endedReason).toBe('carrier_unreachable');
      await new Promise((r) => setTimeout(r, bench.stub.stallMs));
      expect(bench.stub.placed.length).toBe(before + 1);
    } finally {
      bench.stub.mode = 'place';
    }
  }, 30_000);

  it('places a call the carrier could not be reached for once it can be: the request never left', async () => {
    const before = bench.stub.placed.length;
    await bench.stub.unreachableFor(2_500);
    const res = await api('POST', '/calls', { phoneNumberId: bench.number.id, to: '+14155550145' });
    const id = res.body.data.id as string;
    await eventually(async () => (await callOf(id)).carrierCallId !== null, 20_000);
    expect(bench.stub.placed.length).toBe(before + 1);
    expect((await callOf(id)).status).toBe('queued');
  }, 30_000);

  it('a hang-up while the carrier cannot be reached cancels the call, and it is never placed', async () => {
    const before = bench.stub.placed.length;
    await bench.stub.unreachableFor(4_000);
    const res = await api('POST', '/calls', { phoneNumberId: bench.number.id, to: '+14155550147' });
    const id = res.body.data.id as string;
    await new Promise((r) => setTimeout(r, 500)); // its first attempt found no carrier
    expect((await api('POST', `/calls/${id}/hangup`)).status).toBe(200);
    expect(await reaches(id, 'canceled')).toMatchObject({ endedReason: 'hangup', carrierCallId: null });
    await new Promise((r) => setTimeout(r, 5_000)); // the carrier is back: nothing tries again
    expect(bench.stub.placed.length).toBe(before);
  }, 30_000);

  it('ends a call failed (carrier_unreachable) when every placing attempt found the carrier unreachable', async () => {
    const before = bench.stub.placed.length;
    await bench.stub.unreachableFor(25_000);
    const res = await api('POST', '/calls', { phoneNumberId: bench.number.id, to: '+14155550146' });
    const ended = await reaches(res.body.data.id as string, 'failed', 40_000);
    expect(ended).toMatchObject({ endedReason: 'carrier_unreachable', carrierCallId: null });
    await eventually(
      async () =>
        bench.stub.url &&
        (await fetch(bench.stub.url).then(
          () => true,
          () => false,
        )),
      15_000,
    );
    expect(bench.stub.placed.length).toBe(before);
  }, 60_000);

  it('a hang-up while the placing outcome is unknown cancels the call at once, posting nothing more', async () => {
    bench.stub.mode = 'stall';
    try {
      const before = bench.stub.requests.length;
      const res = await api('POST', '/calls', { phoneNumberId: bench.number.id, to: '+14155550144' });
      const id = res.body.data.id as string;
      await eventually(async () => bench.stub.requests.length === before + 1);
      await new Promise((r) => setTimeout(r, 2_000)); // past CARRIER_TIMEOUT_MS: the outcome is unknown
      const hung = await api('POST', `/calls/${id}/hangup`);
      expect(hung.status).toBe(200);
      expect(await reaches(id, 'canceled')).toMatchObject({ endedReason: 'hangup', carrierCallId: null });
      expect(bench.stub.requests.length).toBe(before + 1);
    } finally {
      bench.stub.mode = 'place';
    }
  }, 30_000);
});
