import { fork } from 'node:child_process';
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
import { startSttDouble } from '../test/support/stt-double';
import {
  BENCH_ADMIN_TOKEN,
  benchEnterprise,
  benchRequester,
  benchWorkspace,
  latencyStats,
  runBench,
} from './support';
import { abusiveAccount, underAbuse } from './voice-abuse';
import { firstSegment, openCall, sendSpeech, type TimedTurn, timedTurn } from './voice-clients';
import { knowledgeVoiceTurns } from './voice-knowledge';
import { providerVoiceTurns } from './voice-provider';

/**
 * bench:voice — the live voice stream (docs/voice-stream.md), against the platform as `npm start`
 * runs it (API and worker in one child process; BENCH_SPLIT=1 runs them as two), a Temporal dev
 * server, PostgreSQL, an LLM double that streams like a hosted model (first token after 200 ms, then
 * one every 15 ms; three-sentence replies) and a transcription double that answers after 100 ms:
 * - time to first audio (the client's end of input → the first reply audio byte): text input over
 *   BENCH_TURNS turns, speech input (sent in real time; its input ends VAD_SILENCE_MS after its last
 *   frame) over BENCH_REST_TURNS turns, p50/p95, beside the same run's floor (the model's time to its
 *   first segment + that segment's synthesis, + transcription for speech) and the REST turn with
 *   `audio: true`; targets: p95 ≤ floor + 50 ms and ≤ 50% of the REST turn;
 * - barge-in: `interrupt` sent → the last audio frame received, p95 (target ≤ 100 ms);
 * - real time: BENCH_CALLS concurrent calls: after its first frame, every frame arrives before its
 *   playback time; 0 errors;
 * - knowledge (bench/voice-knowledge.ts; BENCH_PHASES=knowledge runs it alone): a turn that retrieves
 *   from a 20 000-chunk base against one that does not, beside the retrieval alone;
 * - a provider voice (bench/voice-provider.ts; BENCH_PHASES=provider runs it alone): an account’s ElevenLabs voice, first audio against
 *   the model's first segment + the provider's first bytes for it (target: p95 ≤ floor + 50 ms);
 * - under abuse: /healthz p99 and another session's first audio p95 while another account floods
 *   frames on one stream and never reads another (bench/abusive-clients.ts), each ≤ 1.5× the same
 *   figure without them.
 */

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const REST_TURNS = Number(process.env.BENCH_REST_TURNS ?? 50);
const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const WARMUP = 10;
const VOICE = 'espeak-en-us-aria';
const VAD_SILENCE_MS = Number(process.env.VAD_SILENCE_MS ?? 600);

/** A three-sentence reply, different every time (no cache can answer it). */
const reply = (n: number) =>
  `Sure, I can check order ${n} for you. It left our warehouse this morning and is on its way to you now. It should arrive on Thursday before noon, and you will get a text message when it does.`;

const ms = (n: number) => `${n.toFixed(1).padStart(7)} ms`;
const line = (label: string, s: { p50: number; p95: number }) =>
  console.log(`${label.padEnd(44)} p50 ${ms(s.p50)}   p95 ${ms(s.p95)}`);

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({
    logger,
    namespace: 'default',
    searchAttributes: SEARCH_ATTRIBUTES,
  });
  const workspace = benchWorkspace('voice');
  const llm = await startLlmDouble();
  let replies = 0;
  llm.script(() => ({ content: reply(++replies), delayMs: 200, tokenDelayMs: 15 }));
  const stt = await startSttDouble({ transcript: 'Where is my parcel?', delayMs: 100 });
  const split = process.env.BENCH_SPLIT === '1';
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
    BENCH_WORKER: split ? '0' : '1',
  };
  const execArgv = ['--import', 'tsx'];
  const stdio: ['ignore', 'ignore', 'inherit', 'ipc'] = ['ignore', 'ignore', 'inherit', 'ipc'];
  const platform = fork(path.join(__dirname, 'api-server.ts'), [], { execArgv, env, stdio });
  const worker = split
    ? fork(path.join(__dirname, '../src/bin/worker.ts'), [], { execArgv, env, stdio })
    : null;
  const apiPort = await new Promise<number>((resolve, reject) => {
    platform.once('message', (m) => resolve((m as { apiPort: number }).apiPort));
    platform.once('exit', (code) => reject(new Error(`bench platform exited with ${code}`)));
  });
  const base = `http://127.0.0.1:${apiPort}`;
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
      databaseUrl: workspace.databaseUrl,
    });
  } catch (error) {
    process.stderr.write(`bench:voice: the transcription double had ${stt.requests.length} requests\n`);
    throw error;
  } finally {
    platform.kill('SIGTERM');
    worker?.kill('SIGTERM');
    await floorSpeech.close();
    await stt.close();
    await llm.close();
    await workspace.drop();
    await temporal.stop();
  }
}

async function measure(
  base: string,
  dataDir: string,
  deps: { llm: string; stt: string; floorSpeech: SpeechSynthesizer; databaseUrl: string },
): Promise<void> {
  const token = await signDevToken(dataDir, 'bench@example.com');
  await benchEnterprise(base, token); // BENCH_CALLS streams at once: past the free plan's five
  const request = benchRequester(base);
  const key = (
    await request('POST', '/api/v1/developers/keys', token, { name: 'bench', environment: 'test' })
  ).key.fullKey;
  const persona = (
    await request('POST', '/api/v1/developers/personas', token, { manifest: completeManifest('bench-voice') })
  ).persona;
  const session = async (userId: string) =>
    (await request('POST', '/api/v2/developers/sessions', key, { personaId: persona.id, userId })).data
      .id as string;

  if (process.env.BENCH_PHASES === 'provider') {
    // the provider-voice phase alone (its own floor)
    await providerVoiceTurns(base, deps.llm, { token, key, request });
    return;
  }
  if (process.env.BENCH_PHASES === 'knowledge') {
    // the knowledge phase alone (bench/voice-knowledge.ts: a turn with retrieval against one without)
    await knowledgeVoiceTurns(base, { token, key, request, databaseUrl: deps.databaseUrl, turns: TURNS });
    return;
  }
  // the floor, same run: the model's first segment (streamed from the double, cut as the platform
  // cuts it), its synthesis (speech threads of this process, no cache), and a transcription
  const progress = (what: string) => process.stderr.write(`bench:voice: ${what}\n`);
  progress('measuring the floor');
  await deps.floorSpeech.warmed();
  const floorText: number[] = [];
  const floorSpeech: number[] = [];
  const speechToText = createSpeechToText({ baseUrl: deps.stt, model: 'whisper-1', timeoutMs: 10_000 })!;
  const caller = await callerUtterance();
  for (let i = 0; i < TURNS + WARMUP; i++) {
    const { elapsed, text } = await firstSegment(deps.llm);
    const t0 = performance.now();
    await deps.floorSpeech.speakPcm(VOICE, `${text} ${i}`);
    const synth = performance.now() - t0;
    const t1 = performance.now();
    await speechToText.transcribe({ pcm16: caller.speech, sampleRate: 16_000 });
    const transcription = performance.now() - t1;
    if (i < WARMUP) continue;
    floorText.push(elapsed + synth);
    floorSpeech.push(elapsed + synth + transcription);
  }

  progress('text turns');
  const call = await openCall(base, await session('bench-text'), key);
  const textTurns: TimedTurn[] = [];
  for (let i = 0; i < TURNS + WARMUP; i++) {
    const turn = await timedTurn(call, () => call.sendText(`Where is order ${i}?`), {
      interruptAfterMs: 300,
    });
    if (i >= WARMUP) textTurns.push(turn);
  }
  call.end();
  progress('speech turns');
  const audioCall = await openCall(base, await session('bench-speech'), key);
  const speechTurns: TimedTurn[] = [];
  for (let i = 0; i < REST_TURNS + WARMUP; i++) {
    const turn = await timedTurn(audioCall, () => sendSpeech(audioCall, caller.withTail, 1), {
      interruptAfterMs: 300,
      endOfInputAfterMs: VAD_SILENCE_MS,
    });
    if (i >= WARMUP) speechTurns.push(turn);
  }
  audioCall.end();
  progress('REST turns');
  const restSession = await session('bench-rest');
  const rest: number[] = [];
  for (let i = 0; i < REST_TURNS + 3; i++) {
    const t0 = performance.now();
    await request('POST', `/api/v2/developers/sessions/${restSession}/turns`, key, {
      text: `order ${i}?`,
      audio: true,
    });
    if (i >= 3) rest.push(performance.now() - t0);
  }
  progress('provider voice (an ElevenLabs double)');
  await providerVoiceTurns(base, deps.llm, { token, key, request });
  progress(`${CALLS} concurrent calls`);
  const concurrent = await concurrentCalls(base, key, session);
  progress('under abuse (another account floods frames on one stream and never reads another)');
  const abuse = await underAbuse(base, key, session, await abusiveAccount(base, dataDir));
  report({ floorText, floorSpeech, textTurns, speechTurns, rest, concurrent, abuse });
}

/**
 * "Where is my parcel?" in eSpeak's voice at 16 kHz: alone (for the floor's transcription), and with
 * 100 ms of silence after it, as a push-to-talk client sends it before it stops sending; the
 * utterance ends VAD_SILENCE_MS after its last frame.
 */
async function callerUtterance() {
  const spoken = await speakWithEspeak('Where is my parcel?');
  const speech = resamplePcm16(spoken.pcm16, spoken.sampleRate, 16_000);
  const withTail = new Int16Array(speech.length + 1600);
  withTail.set(speech);
  return { speech, withTail };
}

/** CALLS calls at once, three whole turns each (not interrupted). */
async function concurrentCalls(base: string, key: string, session: (user: string) => Promise<string>) {
  const calls = await Promise.all(
    Array.from({ length: CALLS }, async (_, i) => openCall(base, await session(`bench-call-${i}`), key)),
  );
  const turns = await Promise.all(
    calls.map(async (call, i) => {
      const done: TimedTurn[] = [];
      for (let t = 0; t < 3; t++)
        done.push(await timedTurn(call, () => call.sendText(`Call ${i}, question ${t}`)));
      call.end();
      return done;
    }),
  );
  return turns.flat();
}

function report(r: {
  floorText: number[];
  floorSpeech: number[];
  textTurns: TimedTurn[];
  speechTurns: TimedTurn[];
  rest: number[];
  concurrent: TimedTurn[];
  abuse: Awaited<ReturnType<typeof underAbuse>>;
}): void {
  const text = latencyStats(r.textTurns.map((t) => t.firstAudioMs));
  const speech = latencyStats(r.speechTurns.map((t) => t.firstAudioMs));
  const floorText = latencyStats(r.floorText);
  const floorSpeech = latencyStats(r.floorSpeech);
  const rest = latencyStats(r.rest);
  const barge = latencyStats([...r.textTurns, ...r.speechTurns].map((t) => t.bargeInMs ?? 0));
  console.log(
    `bench:voice — ${r.textTurns.length} text turns, ${r.speechTurns.length} speech turns, ${r.rest.length} REST turns, ${CALLS} concurrent calls`,
  );
  line('time to first audio, text in', text);
  line('  floor: model to 1st segment + its synthesis', floorText);
  line('time to first audio, speech in', speech);
  line('  floor: + transcription', floorSpeech);
  line('REST turn with audio: true (whole reply)', rest);
  console.log(
    `text:   p95 ${ms(text.p95 - floorText.p95)} above the floor (target ≤ 50 ms); ${((100 * text.p95) / rest.p95).toFixed(0)}% of the REST turn at p95 (target ≤ 50%)`,
  );
  console.log(
    `speech: p95 ${ms(speech.p95 - floorSpeech.p95)} above the floor (target ≤ 50 ms); ${((100 * speech.p95) / rest.p95).toFixed(0)}% of the REST turn at p95`,
  );
  line('barge-in: interrupt → last audio frame', barge);
  const late = r.concurrent.reduce((n, t) => n + t.lateFrames, 0);
  const frames = r.concurrent.reduce((n, t) => n + t.frames, 0);
  const worst = Math.max(0, ...r.concurrent.map((t) => t.worstLateMs));
  const first = latencyStats(r.concurrent.map((t) => t.firstAudioMs));
  console.log(
    `real time: ${CALLS} calls × 3 turns: ${frames} frames, ${late} after their playback time (worst ${worst.toFixed(1)} ms late), 0 errors; first audio p50 ${ms(first.p50)} p95 ${ms(first.p95)}`,
  );
  const { calm, polite, abused } = r.abuse;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  for (const [name, pick] of [
    ['/healthz p99', (f: typeof calm) => f.healthz.p99],
    ["another session's first audio p95", (f: typeof calm) => f.firstAudio.p95],
  ] as const) {
    console.log(
      `under abuse: ${name} ${ms(pick(abused))} against ${ms(pick(calm))} alone (${ratio(pick(abused), pick(calm))}, target ≤ 1.5×); the same talk from polite clients (the floor) ${ms(pick(polite))} (${ratio(pick(polite), pick(calm))} of alone; abuse ${ratio(pick(abused), pick(polite))} of it)`,
    );
  }
}

runBench(main);
