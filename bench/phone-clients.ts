/**
 * The callers of bench:phone: phone calls through the Twilio double (test/support/twilio-double.ts),
 * a real HTTP and WebSocket peer that rings the number's inboundUrl with a signed webhook, follows
 * the TwiML, and opens the media stream; it sends the caller's 20 ms μ-law frames in real time and
 * plays the platform's in real time.
 */
import type { DoubleCall, TwilioDouble, TwilioMediaStream } from '../test/support/twilio-double';

/** How long a caller talking over a reply waits for the platform's `clear` before it counts as missed. */
const BARGE_IN_GIVE_UP_MS = 10_000;

/** The media frames the carrier received after `since` (performance.now()). */
const mediaAfter = (stream: TwilioMediaStream, since: number) =>
  stream.received.media.filter((m) => m.at > since);

export interface PhoneLine {
  call: DoubleCall;
  stream: TwilioMediaStream;
}

/** Dials the number and waits until its greeting has played. */
export async function dialNumber(
  double: TwilioDouble,
  number: { inboundUrl: string; number: string; statusCallbackUrl: string },
  from: string,
): Promise<PhoneLine> {
  const call = await double.dial(number.inboundUrl, {
    from,
    to: number.number,
    statusCallback: number.statusCallbackUrl,
  });
  const stream = await call.waitForStream(60_000);
  await stream.until(
    () => stream.received.marks.length > 0 && stream.bufferedMs === 0,
    60_000,
    'the greeting',
  );
  return { call, stream };
}

/** Waits until the carrier's buffer is empty and nothing more came for a second (a reply is over). */
export async function playedOut(stream: TwilioMediaStream): Promise<void> {
  for (let seen = -1; seen !== stream.received.media.length || stream.bufferedMs > 0; ) {
    seen = stream.received.media.length;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** One turn on a call, as the carrier saw it. */
export interface PhoneTurn {
  /** The caller's last speech frame sent → the first reply `media` frame received. */
  firstAudioMs: number;
  /** The caller starts speaking over the reply → `clear` received (when the turn was interrupted). */
  bargeInMs?: number;
  /** The caller spoke over the reply and no `clear` came within BARGE_IN_GIVE_UP_MS. */
  bargeInMissed?: boolean;
  /** Reply frames that played after their time (the carrier's buffer ran dry within the reply). */
  lateFrames: number;
  frames: number;
}

/**
 * Says `question` and times the first reply frame from its last speech frame. With `interruptWith`,
 * the caller says it over the reply `interruptAfterMs` after the reply began playing, and the time to
 * the platform's `clear` is taken from the first frame of it; else the reply plays out, and its
 * frames are checked against real-time playback.
 */
export async function phoneTurn(
  line: PhoneLine,
  question: Int16Array,
  opts: { interruptWith?: Int16Array; interruptAfterMs?: number } = {},
): Promise<PhoneTurn> {
  const { stream } = line;
  await stream.say(question);
  const lastFrameAt = stream.sentFrameTimes.at(-1)!;
  await stream.until(() => mediaAfter(stream, lastFrameAt).length > 0, 60_000, 'the reply');
  const firstAt = mediaAfter(stream, lastFrameAt)[0].at;
  const turn: PhoneTurn = { firstAudioMs: firstAt - lastFrameAt, lateFrames: 0, frames: 0 };
  if (opts.interruptWith) {
    await new Promise((r) => setTimeout(r, opts.interruptAfterMs ?? 300));
    const clears = stream.received.clears.length;
    const sentBefore = stream.sentFrameTimes.length;
    const said = stream.say(opts.interruptWith);
    // an interruption the platform never acts on (no clear while the caller speaks and its
    // utterance is taken) is counted, not timed
    const cleared = await stream
      .until(() => stream.received.clears.length > clears, BARGE_IN_GIVE_UP_MS, 'the clear')
      .then(
        () => true,
        () => false,
      );
    const speechStartedAt = stream.sentFrameTimes[sentBefore];
    if (cleared) turn.bargeInMs = stream.received.clears[clears].at - speechStartedAt;
    else turn.bargeInMissed = true;
    await said;
    return turn;
  }
  const underrunsBefore = stream.underruns;
  await playedOut(stream);
  // a frame late at the carrier: its playback ran dry mid-segment and the frame came afterwards
  turn.lateFrames = stream.underruns - underrunsBefore;
  turn.frames = stream.heard.filter((h) => h.at >= firstAt).length;
  return turn;
}

/** The CPU time a process has used (user + system, ms), from /proc. */
export async function cpuMsOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the line (11 and 12 after the command's closing paren)
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}
