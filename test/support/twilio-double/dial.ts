import { randomBytes } from 'node:crypto';
import { type CallSetup, type DialedPartyScript, requestTwiml, signatureFor } from './call-requests';
import { readTwiml, type TwimlVerb } from './twiml-reader';

type DialVerb = Extract<TwimlVerb, { verb: 'Dial' }>;

/** What a dial needs of its call. */
export interface DialingCall {
  setup: CallSetup;
  sid: string;
  /** The call's parameters, as Twilio sends them in its requests. */
  params(): Record<string, string>;
  /** The caller hung up (or the API ended the call). */
  hungUp(): boolean;
  /** Resolves the bridge when either side hangs up. */
  onBridgeEnd(end: () => void): void;
  /** What the whisper said to the dialled party. */
  whispered(text: string): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `<Dial>` (https://www.twilio.com/docs/voice/twiml/dial) as Twilio runs it: the party rings; on an
 * answer the noun's `url` (the whisper) is requested, signed, as the dialled leg's call
 * (`ParentCallSid` the caller's) and its `<Say>` played to the party, then both talk until one hangs
 * up. With an `action`, its end is posted there (`DialCallStatus`, `DialCallSid`,
 * `DialCallDuration`) and the answer is the call's next document; without, the call goes on with
 * the rest of its document (`undefined`).
 */
export async function runDial(
  call: DialingCall,
  dial: DialVerb,
  script: DialedPartyScript,
): Promise<string | undefined> {
  const childSid = `CA${randomBytes(16).toString('hex')}`;
  await sleep(script.ringMs ?? 100);
  let status: string = script.outcome === 'answer' ? 'completed' : script.outcome;
  let talkedS = 0;
  if (script.outcome === 'answer' && !call.hungUp()) {
    if (dial.url) {
      const params = {
        AccountSid: call.setup.accountSid,
        CallSid: childSid,
        ParentCallSid: call.sid,
        CallStatus: 'in-progress',
        Direction: 'outbound-dial',
        From: dial.callerId ?? call.setup.from,
        To: dial.destination,
      };
      const whisper = await requestTwiml(dial.url, params, signatureFor(call.setup, dial.url, params));
      for (const verb of whisper.status === 200 ? readTwiml(whisper.body) : [])
        if (verb.verb === 'Say') call.whispered(verb.text);
    }
    const answeredAt = Date.now();
    await new Promise<void>((resolve) => {
      call.onBridgeEnd(resolve);
      if (script.talkMs !== undefined) setTimeout(resolve, script.talkMs);
    });
    talkedS = Math.round((Date.now() - answeredAt) / 1000);
  }
  if (call.hungUp()) status = 'completed';
  if (!dial.action) return undefined;
  const params = {
    ...call.params(),
    DialCallStatus: status,
    DialCallSid: childSid,
    DialCallDuration: String(talkedS),
  };
  const answer = await requestTwiml(dial.action, params, signatureFor(call.setup, dial.action, params));
  // the caller is gone: Twilio asks the action, and follows nothing
  if (call.hungUp() || answer.status !== 200) return undefined;
  return answer.body;
}
