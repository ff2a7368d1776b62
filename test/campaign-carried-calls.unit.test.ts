import { CARRIED_CHECK_MS, CampaignCalls } from '../workflows/campaign-calls';

/**
 * The calls a campaign's run carries over from the one before (continue-as-new): pure bookkeeping,
 * outside any workflow (no child is started here). They hold their slots until their word, or until
 * their rows say they ended (looked up every CARRIED_CHECK_MS).
 */
describe('carried-over campaign calls', () => {
  const settings = {
    accountId: 'acc',
    phoneNumberId: 'pn',
    personaId: 'per',
    taskQueue: 'q',
    maxDurationS: 600,
    unconfirmedWaitS: 60,
    carrierTimeoutMs: 10_000,
  };
  const carried = [
    { index: 0, attempt: 1, callId: 'call_a', carriedSince: 1_000 },
    { index: 1, attempt: 2, callId: 'call_b', carriedSince: 2_000 },
  ];

  it('hold their slots until their word, then their outcome is to record', () => {
    const calls = new CampaignCalls(settings, carried);
    expect(calls.inFlight).toBe(2);
    expect(calls.openCount).toBe(2);
    calls.ended('call_b', { status: 'busy', endedReason: null });
    expect(calls.inFlight).toBe(1);
    // no child completion follows a carried call's word
    expect(calls.openCount).toBe(1);
    expect(calls.takeFinished()).toEqual([{ index: 1, attempt: 2, outcome: 'busy' }]);
    // a repeated word changes nothing
    calls.ended('call_b', { status: 'completed', endedReason: null });
    expect(calls.hasFinished).toBe(false);
  });

  it('are handed on again with the time they were first carried', () => {
    const calls = new CampaignCalls(settings, carried);
    expect(calls.carryOver(9_000)).toEqual(carried);
  });

  it('are looked up every CARRIED_CHECK_MS: a call whose row ended is settled from it', async () => {
    const calls = new CampaignCalls(settings, carried);
    const asked: string[][] = [];
    const lookUp = async ({ callIds }: { callIds: string[] }) => {
      asked.push(callIds);
      return [{ callId: 'call_a', status: 'completed', endedReason: 'caller_hung_up' }];
    };
    await calls.lookAfterCarried(10_000, lookUp);
    expect(asked).toEqual([]); // the first look is CARRIED_CHECK_MS away
    expect(calls.carriedWakeIn(10_000)).toBe(CARRIED_CHECK_MS);
    await calls.lookAfterCarried(10_000 + CARRIED_CHECK_MS, lookUp);
    expect(asked).toEqual([['call_a', 'call_b']]);
    expect(calls.takeFinished()).toEqual([{ index: 0, attempt: 1, outcome: 'answered' }]);
    expect(calls.inFlight).toBe(1);
    expect(calls.openCount).toBe(1);
  });

  it('with none carried, need no looking after', async () => {
    const calls = new CampaignCalls(settings);
    const lookUp = jest.fn();
    await calls.lookAfterCarried(10_000 + 10 * CARRIED_CHECK_MS, lookUp);
    expect(lookUp).not.toHaveBeenCalled();
    expect(calls.carriedWakeIn(0)).toBeUndefined();
  });
});
