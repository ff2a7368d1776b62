import { PHONE_FRAME_MS } from '../audio';
import { findSteadyTone } from '../audio/steady-tone';

/** Who answered an outbound call: a person, or an answering machine (its greeting, then a beep). */
export type AnsweredBy = 'human' | 'machine';

/** The carrier's verdict (Twilio's `AnsweredBy`, as the call's workflow hands it over). */
export interface CarrierVerdict {
  answeredBy: 'human' | 'machine' | 'fax' | 'unknown';
  beep: boolean;
}

/** Words of a machine's greeting that a person answering does not say. */
const MACHINE_WORDING =
  /\b(leave (me |us )?(a |your )?(message|name)|after the (tone|beep)|(is|am|are) not available|unavailable|voice ?mail|mailbox|can'?t (come|get) to the phone|you('ve| have) reached|record your message)\b/i;

/** A first utterance this long is a machine's greeting (a person's "Hello?" takes about a second). */
export const MACHINE_GREETING_MS = 3_000;
/** No words this long after the answer: a person waiting for the caller to speak. */
export const FIRST_WORDS_WAIT_MS = 5_000;
/** After the verdict "machine", the message is left this long after the greeting if no beep comes. */
export const BEEP_WAIT_MS = 6_000;
/** The caller audio the beep is looked for in: the last 1.5 s, every 200 ms. */
const BEEP_WINDOW_MS = 1_500;
const BEEP_LOOK_EVERY_FRAMES = 10;

/**
 * The platform's own answering-machine detection on an outbound call (docs/telephony.md
 * "Voicemail"), for carriers that offer none: the first utterance decides, by its wording ("leave
 * a message after the tone") and its length (a greeting runs on, a person's "Hello?" does not);
 * no words for FIRST_WORDS_WAIT_MS is a person waiting. On a machine it waits for the beep, a
 * steady tone near 1 kHz (Goertzel filters, src/telephony/audio/steady-tone.ts) that has ended,
 * and says when to speak: after the beep, or BEEP_WAIT_MS after the greeting if none comes.
 */
export class AnsweringMachineDetector {
  private verdict?: AnsweredBy;
  private recent: Int16Array[] = [];
  private frames = 0;
  private beepHeard = false;
  private firstWordsTimer?: NodeJS.Timeout;
  private beepTimer?: NodeJS.Timeout;
  private done = false;

  constructor(
    private readonly hooks: {
      /** The verdict, once: a person (converse), or a machine (wait for `speakNow`). */
      answeredBy(who: AnsweredBy, why: string): void;
      /** On a machine: its beep has ended (or never came): the message may be left now; a fax gets none. */
      speakNow(after: 'beep' | 'no_beep' | 'fax'): void;
    },
    /** The carrier detects (Twilio's AMD): its verdict (`carrierSaid`) decides, not the audio. */
    private readonly byCarrier = false,
  ) {
    if (!byCarrier)
      this.firstWordsTimer = setTimeout(() => this.decide('human', 'no words'), FIRST_WORDS_WAIT_MS);
  }

  /**
   * The carrier's verdict (Twilio's `AnsweredBy`, posted once a machine's greeting has ended): a
   * machine's message is left at once; a person, an unknown answer or no verdict is greeted.
   */
  carrierSaid(verdict: CarrierVerdict | null): void {
    if (this.verdict || this.done) return;
    const said = verdict?.answeredBy ?? 'no verdict';
    if (said === 'fax') {
      // a machine, but no message: nobody will hear it
      this.verdict = 'machine';
      this.hooks.answeredBy('machine', 'carrier: fax');
      this.speak('fax');
    } else if (said === 'machine') {
      // the greeting (and its beep, when it beeped) is over: the message goes now
      this.beepHeard = true;
      this.decide('machine', `carrier: machine${verdict?.beep ? ', beep' : ''}`);
    } else this.decide('human', `carrier: ${said}`);
  }

  /** Whether the verdict is still to come: the caller's utterances are the detector's, not turns. */
  get listening(): boolean {
    return this.verdict === undefined;
  }

  /** A caller frame (PCM16 at 8 kHz): looked at for the beep until the message is left. */
  hear(narrow: Int16Array): void {
    if (this.done || this.byCarrier || this.verdict === 'human') return;
    this.recent.push(narrow);
    const keep = Math.ceil(BEEP_WINDOW_MS / PHONE_FRAME_MS);
    if (this.recent.length > keep) this.recent.splice(0, this.recent.length - keep);
    if (++this.frames % BEEP_LOOK_EVERY_FRAMES === 0) this.lookForBeep();
  }

  /** The caller's first utterance (its transcript and how long it was said). */
  utterance(text: string, durationMs: number): void {
    if (this.verdict || this.byCarrier) return;
    if (MACHINE_WORDING.test(text)) this.decide('machine', 'wording');
    else if (durationMs >= MACHINE_GREETING_MS) this.decide('machine', 'long greeting');
    else this.decide('human', 'short answer');
  }

  close(): void {
    this.done = true;
    clearTimeout(this.firstWordsTimer);
    clearTimeout(this.beepTimer);
  }

  private decide(who: AnsweredBy, why: string): void {
    if (this.verdict || this.done) return;
    this.verdict = who;
    clearTimeout(this.firstWordsTimer);
    this.hooks.answeredBy(who, why);
    if (who === 'human') {
      this.close();
      return;
    }
    if (this.beepHeard) {
      this.speak('beep');
      return;
    }
    this.beepTimer = setTimeout(() => this.speak('no_beep'), BEEP_WAIT_MS);
  }

  private lookForBeep(): void {
    const samples = new Int16Array(this.recent.reduce((n, f) => n + f.length, 0));
    let at = 0;
    for (const frame of this.recent) {
      samples.set(frame, at);
      at += frame.length;
    }
    const tone = findSteadyTone(samples, 8000);
    // a beep that has ended: a tone still sounding at the window's end is looked at again
    if (!tone || tone.endMs >= samples.length / 8 - PHONE_FRAME_MS) return;
    this.recent = [];
    this.beepHeard = true;
    // a beep before any words is a machine's
    if (!this.verdict) this.decide('machine', 'beep');
    else if (this.verdict === 'machine') this.speak('beep');
  }

  private speak(after: 'beep' | 'no_beep' | 'fax'): void {
    if (this.done) return;
    this.close();
    this.hooks.speakNow(after);
  }
}

/**
 * Screens an outbound call (docs/telephony.md "Voicemail"): by the carrier's verdict when it detects
 * (asked for at once: the call's workflow hands it over when it comes), else by the call's audio. A
 * person is greeted; a machine gets the message (none for a fax), then the call hangs up.
 */
export function screenOutboundAnswer(
  setup: { message: string | null; carrierDetects?: boolean },
  call: {
    answeredBy(): Promise<CarrierVerdict | null>;
    log(who: AnsweredBy, why: string): void;
    greet(): void;
    leave(message: string | null): void;
  },
): AnsweringMachineDetector {
  const detector = new AnsweringMachineDetector(
    {
      answeredBy: (who, why) => {
        call.log(who, why);
        if (who === 'human') call.greet();
      },
      speakNow: (after) => call.leave(after === 'fax' ? null : setup.message),
    },
    setup.carrierDetects,
  );
  if (setup.carrierDetects)
    call.answeredBy().then(
      (verdict) => detector.carrierSaid(verdict),
      () => detector.carrierSaid(null),
    );
  return detector;
}

/** `{{name}}` in a message filled with the call's variables (an unknown name is left out). */
export function fillCallVariables(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_, name: string) => variables[name] ?? '');
}

/** What an outbound call leaves on a machine: the persona's voicemail message, filled; none: it hangs up. */
export function answeringMachineSetup(
  voicemailMessage: string | undefined,
  variables: Readonly<Record<string, string>> | null | undefined,
): { message: string | null } {
  const message = voicemailMessage?.trim() ? fillCallVariables(voicemailMessage, variables ?? {}).trim() : '';
  return { message: message || null };
}
