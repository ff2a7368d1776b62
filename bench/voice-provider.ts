/**
 * bench:voice's provider-voice phase (docs/providers.md "Voices from a provider"): an account's
 * ElevenLabs voice (a double that streams as ElevenLabs does: its first bytes 150 ms after the
 * request, then 4 KiB, about 93 ms of audio, every 20 ms), text turns on a live call timed as the
 * catalog's are, beside the same run's floor: the model's first segment + the provider's first bytes
 * for it (a segment plays from its first bytes), and, for comparison, + its whole answer.
 */
import { loadConfig } from '../src/config/env';
import { elevenLabsSpeechPcm } from '../src/voices/elevenlabs-tts';
import { startElevenLabsDouble } from '../test/support/elevenlabs-double';
import { completeManifest } from '../test/support/personas';
import { latencyStats } from './support';
import { firstSegment, openCall, type TimedTurn, timedTurn } from './voice-clients';

const TURNS = Number(process.env.BENCH_PROVIDER_TURNS ?? 50);
const WARMUP = 5;
const XI_KEY = 'xi-bench-key';
const VOICE_ID = '21m00Tcm4TlvDq8ikWAM';
const MODEL = 'eleven_flash_v2_5';

type Request = (method: string, path: string, auth: string, body?: unknown) => Promise<any>;

const ms = (n: number) => `${n.toFixed(1).padStart(7)} ms`;

/** The phase: its own double, provider, persona and call; prints its lines. */
export async function providerVoiceTurns(
  base: string,
  llmBase: string,
  auth: { token: string; key: string; request: Request },
): Promise<void> {
  const eleven = await startElevenLabsDouble({ apiKey: XI_KEY, firstByteMs: 150, chunkEveryMs: 20 });
  try {
    const { request, token, key } = auth;
    const provider = (
      await request('POST', '/api/v2/developers/providers', key, {
        name: 'bench ElevenLabs',
        kind: 'voice',
        api: 'elevenlabs',
        baseUrl: eleven.baseUrl,
        apiKey: XI_KEY,
      })
    ).data.id as string;
    const manifest = {
      ...completeManifest('bench-eleven'),
      voice: { provider, voice_id: VOICE_ID, model: MODEL },
    };
    const persona = (await request('POST', '/api/v1/developers/personas', token, { manifest })).persona;
    const sessionId = (
      await request('POST', '/api/v2/developers/sessions', key, {
        personaId: persona.id,
        userId: 'bench-eleven',
      })
    ).data.id as string;
    const floor = await providerFloor(llmBase, eleven.baseUrl);
    const call = await openCall(base, sessionId, key);
    const turns: TimedTurn[] = [];
    for (let i = 0; i < TURNS + WARMUP; i++) {
      const turn = await timedTurn(call, () => call.sendText(`Where is order ${i}?`), {
        interruptAfterMs: 300,
      });
      if (i >= WARMUP) turns.push(turn);
    }
    call.end();
    report(turns, floor);
  } finally {
    await eleven.close();
  }
}

/** The model's first segment + the provider's answer for it, measured here with the platform's own client. */
async function providerFloor(llmBase: string, elevenBase: string) {
  const policy = loadConfig({ ...process.env, NODE_ENV: 'development' }).outbound;
  const whole: number[] = [];
  const firstBytes: number[] = [];
  for (let i = 0; i < TURNS + WARMUP; i++) {
    const { elapsed, text } = await firstSegment(llmBase);
    const t0 = performance.now();
    await elevenLabsSpeechPcm({ baseUrl: elevenBase, apiKey: XI_KEY }, policy, {
      voiceId: VOICE_ID,
      model: MODEL,
      text: `${text} ${i}`,
    });
    const synthesis = performance.now() - t0;
    const toFirstBytes = await timeToFirstBytes(elevenBase, `${text} ${i}`);
    if (i < WARMUP) continue;
    whole.push(elapsed + synthesis);
    firstBytes.push(elapsed + toFirstBytes);
  }
  return { whole: latencyStats(whole), firstBytes: latencyStats(firstBytes) };
}

/** The request → the first bytes of the provider's answer (then the rest is read off). */
async function timeToFirstBytes(elevenBase: string, text: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${elevenBase}/v1/text-to-speech/${VOICE_ID}/stream?output_format=pcm_22050`, {
    method: 'POST',
    headers: { 'xi-api-key': XI_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ text, model_id: MODEL }),
  });
  const reader = res.body!.getReader();
  await reader.read();
  const elapsed = performance.now() - t0;
  while (!(await reader.read()).done);
  return elapsed;
}

function report(turns: TimedTurn[], floor: Awaited<ReturnType<typeof providerFloor>>): void {
  const first = latencyStats(turns.map((t) => t.firstAudioMs));
  const line = (label: string, s: { p50: number; p95: number }) =>
    console.log(`${label.padEnd(44)} p50 ${ms(s.p50)}   p95 ${ms(s.p95)}`);
  console.log(`provider voice (ElevenLabs double, first bytes after 150 ms): ${turns.length} text turns`);
  line('time to first audio, text in', first);
  line('  floor: model to 1st segment + its 1st bytes', floor.firstBytes);
  line('  (to the provider’s whole answer)', floor.whole);
  console.log(
    `provider voice: p95 ${ms(first.p95 - floor.firstBytes.p95)} above the floor (target ≤ 50 ms); ${ms(floor.whole.p95 - first.p95)} before the provider's whole answer`,
  );
}
