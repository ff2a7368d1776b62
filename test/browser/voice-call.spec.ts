import { expect, type Page, test } from '@playwright/test';
import { CALLER_WAV, CHROMIUM_PATH } from '../../playwright.config';
import { completeManifest } from '../support/personas';
import { scriptLlm } from './seed';
import { api, CALLER_WORDS, devToken, expectAccessible, newEmail, signIn } from './support';

// Chromium's fake microphone, allowed without a prompt, says CALLER_WAV once when the page turns it on
test.use({
  permissions: ['microphone'],
  launchOptions: {
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${CALLER_WAV}%noloop`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  },
});

/** A long reply streamed slowly: still being made and spoken when the test interrupts it. */
const LONG_REPLY = Array.from(
  { length: 20 },
  (_, i) => `News number ${i + 1}: we have new lamps, rugs and kettles in the shop this week.`,
).join(' ');

/** What the page's audio graph has done (web/src/voice/audio-stats.ts). */
interface AudioStats {
  replySamplesScheduled: number;
  replySamplesPlayed: number;
  activeReplyBuffers: number;
  replyStops: number;
  callerFramesSent: number;
}
const audioStats = (page: Page) =>
  page.evaluate(() => ((globalThis as any).__voiceAudioStats ?? { replySamplesScheduled: 0 }) as AudioStats);

async function draftPersona(email: string): Promise<string> {
  const token = await devToken(email);
  const created = await api('POST', '/api/v1/developers/personas', {
    token,
    body: { manifest: completeManifest(`ava-call-${Date.now().toString(36)}`) },
  });
  expect(created.status).toBe(201);
  expect(created.body.persona.status).toBe('draft');
  return created.body.persona.id;
}

test('talk to a draft persona by voice: the words, the reply played, interrupted, then recorded in the session log', async ({
  page,
}) => {
  test.setTimeout(150_000);
  const email = newEmail('voice-call');
  const personaId = await draftPersona(email);
  await signIn(page, email, `/console/personas/${personaId}`);
  await page.getByRole('button', { name: 'Test call' }).click();
  const panel = page.getByRole('region', { name: 'Test call with Ava' });
  const transcript = panel.getByRole('log', { name: 'Call transcript' });
  await panel.getByRole('button', { name: 'Start call' }).click();

  // the greeting, spoken: its audio went into the page's audio graph
  const greeting = transcript.getByTestId('call-agent').first();
  await expect(greeting).toContainText('Hi, this is Ava from Homegoods. How can I help?');
  await expect(greeting).not.toContainText('speaking…');
  await expect.poll(async () => (await audioStats(page)).replySamplesScheduled).toBeGreaterThan(0);

  // the caller speaks through the microphone: the recognized words come back
  await scriptLlm([], LONG_REPLY, { tokenDelayMs: 40 });
  const before = await audioStats(page);
  const microphone = panel.getByRole('button', { name: 'Microphone' });
  await microphone.click();
  await expect(microphone).toHaveAttribute('aria-pressed', 'true');
  await expect(panel.getByText('Listening: speak to the agent.')).toBeVisible();
  await expect(transcript.getByTestId('call-caller')).toContainText(CALLER_WORDS, { timeout: 30_000 });
  await microphone.click();
  await expect(microphone).toHaveAttribute('aria-pressed', 'false');
  expect((await audioStats(page)).callerFramesSent).toBeGreaterThan(0);

  // the reply streams in and plays: more than a second of it scheduled, and some of it played out
  const reply = transcript.getByTestId('call-agent').nth(1);
  await expect(reply).toContainText('News number 1');
  await expect
    .poll(async () => (await audioStats(page)).replySamplesScheduled - before.replySamplesScheduled)
    .toBeGreaterThan(22_050);
  await expect
    .poll(async () => (await audioStats(page)).replySamplesPlayed)
    .toBeGreaterThan(before.replySamplesPlayed);
  await expectAccessible(page, 'a test call under way');

  // Interrupt: the page's playback stops at once, the server stops the reply, nothing more plays
  await panel.getByRole('button', { name: 'Interrupt' }).click();
  const stopped = await audioStats(page);
  expect(stopped.activeReplyBuffers).toBe(0);
  expect(stopped.replyStops).toBeGreaterThan(before.replyStops);
  await expect(reply.getByTestId('call-interrupted')).toBeVisible();
  await expect(reply).toContainText('recorded as turn 1');
  const afterInterrupt = await audioStats(page);
  await page.waitForTimeout(1500);
  const later = await audioStats(page);
  expect(later.replySamplesScheduled).toBe(afterInterrupt.replySamplesScheduled);
  expect(later.activeReplyBuffers).toBe(0);

  // typed text is a turn too (the model, unscripted again, echoes it)
  await panel.getByLabel('Say something').fill('thanks');
  await panel.getByRole('button', { name: 'Send' }).click();
  await expect(transcript.getByTestId('call-caller').nth(1)).toContainText('thanks');
  await expect(transcript.getByTestId('call-agent').nth(2)).toContainText('recorded as turn 2');

  await panel.getByRole('button', { name: 'End call' }).click();
  await expect(transcript.getByTestId('call-ended')).toContainText('Call ended (ended, 2 turns)');

  // the session log: both turns, the first interrupted, with recordings that load
  const recordings: { status: number; type: string | null }[] = [];
  page.on('response', (res) => {
    if (/\/turns\/\d+\/audio/.test(res.url()))
      recordings.push({ status: res.status(), type: res.headers()['content-type'] ?? null });
  });
  const sessionLink = panel.getByRole('link', { name: /^sess_/ });
  const sessionId = await sessionLink.textContent();
  await sessionLink.click();
  await expect(page.getByRole('heading', { level: 1, name: `Session ${sessionId}` })).toBeVisible();
  const turns = page.getByRole('list', { name: 'Transcript' });
  await expect(turns.getByText(CALLER_WORDS)).toBeVisible();
  await expect(turns.getByText(/Interrupted: the caller heard “News number 1/)).toBeVisible();
  const callerAudio = page.getByTestId('recording-caller');
  const agentAudio = page.getByTestId('recording-agent');
  // the spoken turn has both sides; the typed one only the agent's
  await expect(callerAudio).toHaveCount(1);
  await expect(agentAudio).toHaveCount(2);
  for (const audio of [callerAudio, agentAudio.first(), agentAudio.nth(1)]) {
    await expect.poll(() => audio.evaluate((a) => (a as any).duration as number)).toBeGreaterThan(0.2);
  }
  expect(recordings.filter((r) => r.status === 200).map((r) => r.type)).toEqual([
    'audio/mpeg',
    'audio/mpeg',
    'audio/mpeg',
  ]);
  await expectAccessible(page, 'a session with recordings');
});

test('from the sessions page: the console calls with no API key (an old one it held is left alone), and a typed call is a test session', async ({
  page,
}) => {
  const email = newEmail('sessions-call');
  await draftPersona(email);
  const token = await devToken(email);
  const { publisherId } = (await api('GET', '/api/v1/developers/me', { token })).body;
  // a key as an earlier console made and kept for itself: without sessions:write
  const old = (
    await api('POST', '/api/v1/developers/keys', {
      token,
      body: {
        name: 'Web console',
        environment: 'test',
        scopes: ['webhooks:read', 'webhooks:write', 'workflows:read', 'sessions:read'],
      },
    })
  ).body.key;
  await signIn(page, email, '/console/sessions');
  await page.evaluate(
    ([name, value]) => (globalThis as any).localStorage.setItem(name, value),
    [`vp.console.key.${publisherId}.test`, JSON.stringify({ id: old.id, fullKey: old.fullKey })],
  );

  await page.getByRole('button', { name: 'Test call' }).click();
  const panel = page.getByRole('region', { name: 'Test call with Ava' });
  const transcript = panel.getByRole('log', { name: 'Call transcript' });
  await panel.getByRole('button', { name: 'Start call' }).click();
  await expect(transcript.getByTestId('call-agent').first()).toContainText('Hi, this is Ava');
  await panel.getByLabel('Say something').fill('hello there');
  await panel.getByLabel('Say something').press('Enter');
  await expect(transcript.getByTestId('call-caller')).toContainText('hello there');
  await expect(transcript.getByTestId('call-agent').nth(1)).toContainText('echo: hello there');
  await expect(transcript.getByTestId('call-agent').nth(1)).toContainText('recorded as turn 1');
  // the keypad: keys up to #, taken as the caller's input (a phone call's keys are collected alike)
  const keypad = panel.getByRole('group', { name: 'Keypad' });
  for (const key of ['4', '2', '#']) await keypad.getByRole('button', { name: `Key ${key}` }).click();
  await expect(transcript.getByTestId('call-agent').nth(2)).toContainText('echo: keypad: 42');
  await panel.getByRole('button', { name: 'End call' }).click();
  await expect(transcript.getByTestId('call-ended')).toContainText('Call ended (ended, 2 turns)');

  // the call used the developer's ID token: no key was made, and the old one was not needed
  const keys = (await api('GET', '/api/v1/developers/keys', { token })).body.keys as { id: string }[];
  expect(keys.map((k) => k.id)).toEqual([old.id]);

  // the session is in the test environment's list
  const sessionId = (await panel.getByRole('link', { name: /^sess_/ }).textContent())!;
  await panel.getByRole('link', { name: sessionId }).click();
  await page.getByRole('link', { name: '← Sessions' }).click();
  const row = page.getByRole('row', { name: new RegExp(sessionId) });
  await expect(row).toContainText('console-test-call');
  await expect(row).toContainText('ended');
});
