import {
  type AnsweredBy,
  AnsweringMachineDetector,
  answeringMachineSetup,
  BEEP_WAIT_MS,
  FIRST_WORDS_WAIT_MS,
  fillCallVariables,
  MACHINE_GREETING_MS,
} from '../src/telephony/media/answering-machine';
import { soxBeep } from './support/phone-audio-tools';

/** A detector whose verdicts and "speak now"s are written down. */
function detector() {
  const heard: string[] = [];
  const d = new AnsweringMachineDetector({
    answeredBy: (who: AnsweredBy, why) => heard.push(`${who}: ${why}`),
    speakNow: (after) => heard.push(`speak: ${after}`),
  });
  return { d, heard };
}

/** `pcm` (8 kHz) fed in 20 ms frames, as a phone line brings it. */
function feed(d: AnsweringMachineDetector, pcm: Int16Array) {
  for (let i = 0; i < pcm.length; i += 160) d.hear(pcm.subarray(i, i + 160));
}

describe('answering-machine detection (the platform’s own)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('a machine by its wording, or by a greeting that runs on; a person by a short answer', () => {
    for (const [text, ms, verdict] of [
      ["You've reached Sam, leave a message after the tone", 2_500, 'machine: wording'],
      ['The person you are calling is not available', 2_000, 'machine: wording'],
      [
        'Hi this is Sam and Alex and we love hearing from you so go on',
        MACHINE_GREETING_MS,
        'machine: long greeting',
      ],
      ['Hello?', 700, 'human: short answer'],
      ['Yes, speaking', 1_100, 'human: short answer'],
    ] as const) {
      const { d, heard } = detector();
      d.utterance(text, ms);
      expect([text, heard[0]]).toEqual([text, verdict]);
      d.close();
    }
  });

  it('no words: a person waiting for the caller, greeted after FIRST_WORDS_WAIT_MS', () => {
    const { d, heard } = detector();
    jest.advanceTimersByTime(FIRST_WORDS_WAIT_MS - 1);
    expect(heard).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(heard).toEqual(['human: no words']);
    expect(d.listening).toBe(false);
  });

  it('a machine: the message once its beep has ended, and not while it sounds', () => {
    const { d, heard } = detector();
    d.utterance("You've reached Sam, leave a message after the tone", 2_800);
    feed(d, soxBeep(1000, 0.6, 8000));
    expect(heard).toEqual(['machine: wording']);
    feed(d, new Int16Array(1600)); // 200 ms of silence: the beep is over
    expect(heard).toEqual(['machine: wording', 'speak: beep']);
  });

  it('a beep before any words is a machine’s; a machine with no beep gets the message after BEEP_WAIT_MS', () => {
    const first = detector();
    feed(first.d, new Int16Array(new Int16Array(3200)));
    feed(first.d, soxBeep(950, 0.4, 8000));
    feed(first.d, new Int16Array(1600));
    expect(first.heard).toEqual(['machine: beep', 'speak: beep']);
    const second = detector();
    second.d.utterance('Please leave your message for Sam', 2_000);
    jest.advanceTimersByTime(BEEP_WAIT_MS);
    expect(second.heard).toEqual(['machine: wording', 'speak: no_beep']);
  });

  it('with the carrier detecting, its verdict decides: machine → the message now, fax → none, else a person', () => {
    const verdicts: [Parameters<AnsweringMachineDetector['carrierSaid']>[0], string[]][] = [
      [{ answeredBy: 'machine', beep: true }, ['machine: carrier: machine, beep', 'speak: beep']],
      [{ answeredBy: 'machine', beep: false }, ['machine: carrier: machine', 'speak: beep']],
      [{ answeredBy: 'fax', beep: false }, ['machine: carrier: fax', 'speak: fax']],
      [{ answeredBy: 'human', beep: false }, ['human: carrier: human']],
      [{ answeredBy: 'unknown', beep: false }, ['human: carrier: unknown']],
      [null, ['human: carrier: no verdict']],
    ];
    for (const [verdict, expected] of verdicts) {
      const heard: string[] = [];
      const d = new AnsweringMachineDetector(
        {
          answeredBy: (who: AnsweredBy, why) => heard.push(`${who}: ${why}`),
          speakNow: (after) => heard.push(`speak: ${after}`),
        },
        true,
      );
      // the audio decides nothing: the words, the pause, a beep
      d.utterance("You've reached Sam, leave a message after the tone", 2_800);
      jest.advanceTimersByTime(FIRST_WORDS_WAIT_MS);
      feed(d, soxBeep(1000, 0.5, 8000));
      feed(d, new Int16Array(1600));
      expect(heard).toEqual([]);
      d.carrierSaid(verdict);
      expect(heard).toEqual(expected);
    }
  });

  it('fills the voicemail message with the call’s variables; none configured: hang up without one', () => {
    expect(
      fillCallVariables('Hi {{name}}, order {{ order }}{{missing}}.', { name: 'Sam', order: 'A-1' }),
    ).toBe('Hi Sam, order A-1.');
    expect(answeringMachineSetup('Hi {{name}}, call us back.', { name: 'Sam' })).toEqual({
      message: 'Hi Sam, call us back.',
    });
    expect(answeringMachineSetup(undefined, {})).toEqual({ message: null });
    expect(answeringMachineSetup('  ', null)).toEqual({ message: null });
  });
});
