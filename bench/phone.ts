import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signDevToken } from '../src/auth/dev-idp';
import { loadConfig } from '../src/config/env';
import { createLogger } from '../src/logging/logger';
import { createSpeechToText } from '../src/outbound/transcription';
import { resamplePcm16 } from '../src/outbound/wav';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes';
import { SpeechSynthesizer } from '../src/voices/speech';
import { speakWithEspeak } from '../test/support/espeak-speech';
import { startLlmDouble } from '../test/support/llm-double';
import { completeManifest } from '../test/support/personas';
import { freePort } from '../test/support/resilience';
import { startSttDouble } from '../test/support/stt-double';
import { startTwilioDouble, type TwilioDouble } from '../test/support/twilio-double';
import { cpuMsOf, dialNumber, type PhoneTurn, phoneTurn, playedOut } from './phone-clients';
import {
  BENCH_ADMIN_TOKEN,
  benchEnterprise,
  benchRequester,
  benchWorkspace,
  latencyStats,
  runBench,
} from './support';
import { firstSegment, openCall, sendSpeech, type TimedTurn, timedTurn } from './voice-clients';

/**
 * bench:phone — phone calls (docs/telephony.md), against the platform as `npm start` runs it (API and
 * worker in one child process), a Temporal dev server, PostgreSQL, the Twilio double as the carrier,
 * and the doubles of bench:voice (an LLM streaming like a hosted model, a transcription answering
 * after 100 ms):
 * - time to first audio on a call: the caller's last speech frame → the first reply `media` frame at
 *   the carrier, p50/p95 over BENCH_TURNS turns, beside the same run's floor (VAD_SILENCE_MS + the
 *   transcription + the model's first segment + its synthesis) and the live stream's speech-in figure
 *   measured in the same run (BENCH_STREAM_TURNS turns); targets: p95 ≤ floor + 60 ms, and ≤ 10 ms
 *   over the live stream's;
 * - barge-in on a call: the caller's speech starts over a reply → `clear` at the carrier, p95
 *   (target ≤ INTERRUPT_MIN_SPEECH_MS + 60 ms);
 * - capacity: BENCH_CALLS concurrent calls, three whole turns each: reply frames late at the carrier
 *   (target 0), errors (target 0), and the platform's CPU milliseconds per call-second.
 */

const TURNS = Number(process.env.BENCH_TURNS ?? 100);
const STREAM_TURNS = Number(process.env.BENCH_STREAM_TURNS ?? 30);
const CALLS = Number(process.env.BENCH_CALLS ?? 50);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
/** Phone turns on one call (each takes some 10 s: 25 stay well within a call's 600 s). */
const TURNS_PER_CALL = 25;
const VOICE = 'espeak-en-us-aria';
const VAD_SILENCE_MS = Number(process.env.VAD_SILENCE_MS ?? 600);
const INTERRUPT_MIN_SPEECH_MS = Number(process.env.INTERRUPT_MIN_SPEECH_MS ?? 250);

const reply = (n: number) =>
  `Sure, I can check order ${n} for you. It left our warehouse this morning and is on its way to you now. It should arrive on Thursday before noon, and you will get a text message when it does.`;
const ms = (n: number) => `${n.toFixed(1).padStart(7)} ms`;
const line = (label: string, s: { p50: number; p95: number }) =>
  console.log(`${label.padEnd(48)} p50 ${ms(s.p50)}   p95 ${ms(s.p95)}`);
const progress = (what: string) => process.stderr.write(`bench:phone: ${what}\n`);

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({
    logger,
    namespace: 'default',
    searchAttributes: SEARCH_ATTRIBUTES,
  });
  const workspace = benchWorkspace('phone');
  const llm = await startLlmDouble();
  let replies = 0;
  llm.script(() => ({ content: reply(++replies), delayMs: 200, tokenDelayMs: 15 }));
  const stt = await startSttDouble({ transcript: 'Where is my parcel?', delayMs: 100 });
  const double = await startTwilioDouble();
  const apiPort = await freePort();
  const base = `http://127.0.0.1:${apiPort}`;
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: workspace.databaseUrl,
    DATABASE_POOL_MAX: '20',
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: workspace.dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
    ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    LLM_BASE_URL: llm.baseUrl,
    STT_BASE_URL: stt.baseUrl,
    TWILIO_API_BASE_URL: double.baseUrl,
    PUBLIC_URL: base,
    BENCH_API_PORT: String(apiPort),
    BENCH_WORKER: '1',
  };
  // the platform's own log (warnings and errors) goes to a file, to read when a figure looks wrong
  const logPath = process.env.BENCH_PLATFORM_LOG ?? path.join(os.tmpdir(), 'bench-phone-platform.log');
  const stdio: ['ignore', number, 'inherit', 'ipc'] = ['ignore', fs.openSync(logPath, 'w'), 'inherit', 'ipc'];
  progress(`the platform logs to ${logPath}`);
  // BENCH_CPU_PROF=<dir>: the platform writes a V8 CPU profile there when the bench ends
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF]
    : [];
  const platform = fork(path.join(__dirname, 'api-server.ts'), [], {
    execArgv: ['--import', 'tsx', ...profile],
    env,
    stdio,
  });
  await new Promise<void>((resolve, reject) => {
    platform.once('message', () => resolve());
    platform.once('exit', (code) => reject(new Error(`bench platform exited with ${code}`)));
  });
  const floorSpeech = new SpeechSynthesizer(
    { ...loadConfig({ ...env, VOICE_CACHE_MB: '0', VOICE_WORKERS: '1' }) },
    logger,
  );
  floorSpeech.start();
  try {
    await measure(base, workspace.dataDir, {
      llm: llm.baseUrl,
      stt: stt.baseUrl,
      floorSpeech,
      double,
      pid: platform.pid!,
    });
  } finally {
    platform.kill('SIGTERM');
    await floorSpeech.close();
    await double.close();
    await stt.close();
    await llm.close();
    await workspace.drop();
    await temporal.stop();
  }
}

interface Deps {
  llm: string;
  stt: string;
  floorSpeech: SpeechSynthesizer;
  double: TwilioDouble;
  pid: number;
}

async function measure(base: string, dataDir: string, deps: Deps): Promise<void> {
  const token = await signDevToken(dataDir, 'bench@example.com');
  await benchEnterprise(base, token);
  const request = benchRequester(base);
  const key = (
    await request('POST', '/api/v1/developers/keys', token, { name: 'bench', environment: 'test' })
  ).key.fullKey;
  const persona = (
    await request('POST', '/api/v1/developers/personas', token, { manifest: completeManifest('bench-phone') })
  ).persona;
  const number = (
    await request('POST', '/api/v2/developers/phone-numbers', key, {
      number: '+14155550100',
      provider: 'twilio',
      personaId: persona.id,
      credentials: { accountSid: deps.double.accountSid, authToken: deps.double.authToken },
    })
  ).data;
  const caller = await callerSpeech();

  progress('measuring the floor');
  await deps.floorSpeech.warmed();
  const floor: number[] = [];
  const speechToText = createSpeechToText({ baseUrl: deps.stt, model: 'whisper-1', timeoutMs: 10_000 })!;
  for (let i = 0; i < TURNS + WARMUP; i++) {
    const { elapsed, text } = await firstSegment(deps.llm);
    const t0 = performance.now();
    await deps.floorSpeech.speakPcm(VOICE, `${text} ${i}`);
    await speechToText.transcribe({ pcm16: caller.wide, sampleRate: 16_000 });
    if (i >= WARMUP) floor.push(VAD_SILENCE_MS + elapsed + performance.now() - t0);
  }

  progress('live stream speech turns (the same run)');
  const session = (
    await request('POST', '/api/v2/developers/sessions', key, {
      personaId: persona.id,
      userId: 'bench-stream',
    })
  ).data.id;
  const live = await openCall(base, session, key);
  const streamTurns: TimedTurn[] = [];
  for (let i = 0; i < STREAM_TURNS + WARMUP; i++) {
    const turn = await timedTurn(live, () => sendSpeech(live, caller.wideWithTail, 1), {
      interruptAfterMs: 300,
      endOfInputAfterMs: VAD_SILENCE_MS,
    });
    if (i >= WARMUP) streamTurns.push(turn);
  }
  live.end();

  progress('phone turns, each interrupted by the next question');
  let phone = await dialNumber(deps.double, number, '+14155550199');
  const phoneTurns: PhoneTurn[] = [];
  for (let i = 0; i < TURNS + WARMUP; i++) {
    // a call ends at its maxDurationS (600 s for an inbound call): a fresh call every 25 turns
    if (i > 0 && i % TURNS_PER_CALL === 0) {
      await phone.call.hangUp();
      phone = await dialNumber(deps.double, number, `+1415555${String(1000 + i).padStart(4, '0')}`);
    }
    const turn = await phoneTurn(phone, caller.narrow, {
      interruptWith: caller.narrow,
      interruptAfterMs: 300,
    });
    if (i >= WARMUP) phoneTurns.push(turn);
    // the interruption was a question too: its reply comes and plays out before the next turn
    await phone.stream
      .until(() => phone.stream.bufferedMs > 0, 15_000, 'the reply to the interruption')
      .catch(() => undefined);
    await playedOut(phone.stream);
  }
  await phone.call.hangUp();

  // the turns' figures first: a failure of the capacity phase does not lose them
  reportTurns({ floor, streamTurns, phoneTurns });
  progress(`${CALLS} concurrent calls`);
  reportCapacity(await concurrentCalls(deps, number, caller.narrow));
}

/** The silence after the stream's utterance, as bench:voice sends it (a push-to-talk client's tail). */
const STREAM_TAIL_MS = 100;

/**
 * "Where is my parcel?" in eSpeak's voice with its silence cut at both ends (so its last frame is
 * its last speech): 8 kHz for the phone; 16 kHz with STREAM_TAIL_MS of silence for the live stream.
 */
async function callerSpeech() {
  const spoken = await speakWithEspeak('Where is my parcel?');
  const all = resamplePcm16(spoken.pcm16, spoken.sampleRate, 8000);
  const loud = (s: number) => Math.abs(s) > 500;
  const narrow = all.slice(Math.max(0, all.findIndex(loud)), all.length - [...all].reverse().findIndex(loud));
  const wide = resamplePcm16(narrow, 8000, 16_000);
  const wideWithTail = new Int16Array(wide.length + STREAM_TAIL_MS * 16);
  wideWithTail.set(wide);
  return { narrow, wide, wideWithTail };
}

/** CALLS calls at once, three whole turns each; the platform's CPU time over the phase. */
async function concurrentCalls(deps: Deps, number: Parameters<typeof dialNumber>[1], question: Int16Array) {
  const cpu0 = await cpuMsOf(deps.pid);
  const t0 = performance.now();
  const lines = await Promise.all(
    Array.from({ length: CALLS }, (_, i) => dialNumber(deps.double, number, `+1415555${String(2000 + i)}`)),
  );
  const turns = await Promise.all(
    lines.map(async (l) => {
      const done: PhoneTurn[] = [];
      for (let t = 0; t < 3; t++) done.push(await phoneTurn(l, question));
      return done;
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpuMs = (await cpuMsOf(deps.pid)) - cpu0;
  const errors = lines.reduce((n, l) => n + l.stream.received.invalid.length, 0);
  await Promise.all(lines.map((l) => l.call.hangUp()));
  return { turns: turns.flat(), cpuMsPerCallSecond: cpuMs / (CALLS * seconds), seconds, errors };
}

function reportTurns(r: { floor: number[]; streamTurns: TimedTurn[]; phoneTurns: PhoneTurn[] }): void {
  const phone = latencyStats(r.phoneTurns.map((t) => t.firstAudioMs));
  // the live stream's figure runs from its input's end (its last frame + VAD_SILENCE_MS); from its
  // last speech frame, as the phone's, it is longer by the silence and the tail
  const stream = latencyStats(r.streamTurns.map((t) => t.firstAudioMs + VAD_SILENCE_MS + STREAM_TAIL_MS));
  const floor = latencyStats(r.floor);
  const interrupted = r.phoneTurns.filter((t) => t.bargeInMs !== undefined);
  const missed = r.phoneTurns.filter((t) => t.bargeInMissed).length;
  const barge = latencyStats(interrupted.map((t) => t.bargeInMs!));
  console.log(
    `bench:phone — ${r.phoneTurns.length} phone turns, ${r.streamTurns.length} live-stream speech turns, ${CALLS} concurrent calls`,
  );
  line('time to first audio on a call', phone);
  line('  floor: VAD silence + transcription + model + synthesis', floor);
  line('  the live stream, from its last speech frame', stream);
  console.log(
    `phone: p95 ${ms(phone.p95 - floor.p95)} above the floor (target ≤ 60 ms); ${ms(phone.p95 - stream.p95)} over the live stream's p95 (target ≤ 10 ms)`,
  );
  line('barge-in on a call: speech starts → clear', barge);
  console.log(
    `barge-in: p95 ${ms(barge.p95)} over ${interrupted.length} interruptions (target ≤ ${INTERRUPT_MIN_SPEECH_MS + 60} ms); ${missed} of ${r.phoneTurns.length} never cleared the carrier`,
  );
}

function reportCapacity(capacity: Awaited<ReturnType<typeof concurrentCalls>>): void {
  const { turns, cpuMsPerCallSecond, seconds, errors } = capacity;
  const late = turns.reduce((n, t) => n + t.lateFrames, 0);
  const frames = turns.reduce((n, t) => n + t.frames, 0);
  const first = latencyStats(turns.map((t) => t.firstAudioMs));
  console.log(
    `capacity: ${CALLS} calls × 3 turns in ${seconds.toFixed(0)} s: ${frames} reply frames, ${late} late at the carrier, ${errors} errors; first audio p50 ${ms(first.p50)} p95 ${ms(first.p95)}; ${cpuMsPerCallSecond.toFixed(1)} CPU ms per call-second`,
  );
}

runBench(main);
