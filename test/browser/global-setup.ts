import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { FullConfig } from '@playwright/test';
import { CALLER_WAV, CHROMIUM_PATH } from '../../playwright.config';
import { serveDemoMcp } from '../../src/demo/demo-mcp-server';
import { pcm16ToWav } from '../../src/outbound/wav';
import { speakWithEspeak } from '../support/espeak-speech';
import jestGlobalSetup from '../support/global-setup';
import jestGlobalTeardown from '../support/global-teardown';
import { startSttDouble } from '../support/stt-double';
import { startTestApp, type TestApp } from '../support/test-app';
import { startTwilioDouble } from '../support/twilio-double';
import { CALLER_WORDS } from './support';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The real stack, once per run: the jest global setup's Temporal dev server (free ports), fresh
 * PostgreSQL database with migrations and worker, plus one API instance on a free port serving the
 * console built from web/ (rebuilt first unless CONSOLE_PREBUILT=1, as .ci/run sets after `npm run build`).
 * The API's model is the jest setup's LLM double (scripted over HTTP, below) and its speech-to-text a
 * transcription double that hears CALLER_WORDS, what the fake microphone says (CALLER_WAV). Twilio is
 * the Twilio double (test/support/twilio-double.ts): a number added with its account's credentials
 * (VP_BROWSER_TWILIO_ACCOUNT_SID, VP_BROWSER_TWILIO_AUTH_TOKEN) places calls that it answers.
 */
export default async function globalSetup(_config: FullConfig): Promise<() => Promise<void>> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  if (process.env.CONSOLE_PREBUILT !== '1' || !fs.existsSync(path.join(ROOT, 'dist/console/index.html'))) {
    execFileSync('npm', ['run', '-s', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
  }
  await writeCallerSpeech(CALLER_WAV!);
  await jestGlobalSetup();
  const stt = await startSttDouble({ transcript: CALLER_WORDS });
  const twilio = await startTwilioDouble();
  const app = await startTestApp({
    TEMPORAL_UI_URL: process.env.VP_TEST_TEMPORAL_UI ?? '',
    LLM_BASE_URL: process.env.VP_TEST_LLM_BASE_URL!,
    LLM_MODEL: 'test-model',
    STT_BASE_URL: stt.baseUrl,
    TWILIO_API_BASE_URL: twilio.baseUrl,
  });
  pointCallsAt(app, twilio.baseUrl);
  // the demo shop's MCP server, as `npm start` serves it (the template's agent looks orders up there)
  const demo = await serveDemoMcp({ host: '127.0.0.1', port: 0 });
  app.ctx.demoMcpUrl = demo.url;
  const control = await startLlmControl();
  process.env.VP_BROWSER_BASE_URL = app.baseUrl;
  process.env.VP_BROWSER_DATA_DIR = app.dataDir;
  process.env.VP_BROWSER_LLM_CONTROL = control.url;
  process.env.VP_BROWSER_TWILIO_ACCOUNT_SID = twilio.accountSid;
  process.env.VP_BROWSER_TWILIO_AUTH_TOKEN = twilio.authToken;
  return async () => {
    await new Promise((resolve) => control.server.close(resolve));
    await twilio.close();
    await app.close();
    await demo.close();
    await stt.close();
    await jestGlobalTeardown();
    fs.rmSync(CALLER_WAV!, { force: true });
  };
}

/**
 * Calls reach the API and the carrier as they would in production: PUBLIC_URL (where the carrier
 * posts its callbacks and opens the media stream, and what it signs) is the API's address, known once
 * it listens, and the run's worker, which places the calls, asks the Twilio double.
 */
function pointCallsAt(app: TestApp, twilioBaseUrl: string): void {
  const worker = ((globalThis as Record<string, unknown>).__VP_TEST__ as { ctx: TestApp['ctx'] }).ctx;
  for (const config of [app.ctx.config, worker.config] as { publicUrl?: string }[])
    config.publicUrl = app.baseUrl;
  (worker.config.telephony as { twilioApiBaseUrl: string }).twilioApiBaseUrl = twilioBaseUrl;
}

/**
 * CALLER_WORDS spoken by eSpeak NG as a 16-bit PCM WAV (22 050 Hz): a quarter second of silence, the
 * words, then 1.5 s of silence so that voice activity detection hears the utterance end. Chromium's
 * fake microphone plays it once (`%noloop`) when a page turns the microphone on.
 */
async function writeCallerSpeech(file: string): Promise<void> {
  const { pcm16, sampleRate } = await speakWithEspeak(CALLER_WORDS);
  const lead = Math.round(sampleRate / 4);
  const padded = new Int16Array(lead + pcm16.length + Math.round(sampleRate * 1.5));
  padded.set(pcm16, lead);
  fs.writeFileSync(file, pcm16ToWav(padded, sampleRate));
}

interface LlmDouble {
  script(fn: ((request: unknown, index: number) => unknown) | undefined): void;
}

/**
 * The run's worker and API call the LLM double the jest setup started, in this process. Test files
 * run in worker processes, so they script its next answers over HTTP: `POST {calls, reply}` makes the
 * next completion ask for those tool calls and the one after answer `reply`; with no calls, the next
 * completion answers `reply` at once (streamed a word every `tokenDelayMs`, after `delayMs`). Then
 * it echoes again.
 */
async function startLlmControl(): Promise<{ url: string; server: http.Server }> {
  const llm = ((globalThis as Record<string, unknown>).__VP_TEST__ as { llm: LlmDouble }).llm;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const {
        calls = [],
        reply,
        tokenDelayMs,
        delayMs,
      } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ScriptedAnswer;
      const answer = { content: reply, tokenDelayMs, delayMs };
      llm.script((_request, index) => {
        if (index === 0 && calls.length > 0) {
          return { tool_calls: calls.map((c, i) => ({ id: `call_${i}`, ...c })) };
        }
        llm.script(undefined);
        return answer;
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

/** What a test scripts the model to answer next (see seed.ts `scriptLlm`). */
interface ScriptedAnswer {
  calls?: { name: string; arguments: unknown }[];
  reply: string;
  tokenDelayMs?: number;
  delayMs?: number;
}
