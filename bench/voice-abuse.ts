import { fork } from 'node:child_process';
import path from 'node:path';
import { signDevToken } from '../src/auth/dev-idp';
import { completeManifest } from '../test/support/personas';
import { benchRequester, latencyStats } from './support';
import { openCall, timedTurn } from './voice-clients';

const ROUNDS = Number(process.env.BENCH_ABUSE_ROUNDS ?? 40);
/** /healthz requests per round: 2 000 in all, so that p99 is the 20th slowest, not the 4th. */
const HEALTHZ_PER_ROUND = 50;

/** /healthz and another session's time to first audio, measured round by round. */
async function sample(base: string, call: Awaited<ReturnType<typeof openCall>>, rounds: number) {
  const healthz: number[] = [];
  const firstAudio: number[] = [];
  for (let i = 0; i < rounds; i++) {
    for (let h = 0; h < HEALTHZ_PER_ROUND; h++) {
      const t0 = performance.now();
      await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
      healthz.push(performance.now() - t0);
    }
    const turn = await timedTurn(call, () => call.sendText(`Where is order ${i}?`), {
      interruptAfterMs: 100,
    });
    firstAudio.push(turn.firstAudioMs);
  }
  return { healthz: latencyStats(healthz), firstAudio: latencyStats(firstAudio) };
}

/** Samples while bench/abusive-clients.ts runs in a process of its own: abusive, or its polite twins. */
async function sampleBeside(
  base: string,
  call: Awaited<ReturnType<typeof openCall>>,
  abuser: { key: string; personaId: string },
  polite: boolean,
) {
  const child = fork(path.join(__dirname, 'abusive-clients.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      BENCH_ABUSE_BASE: base,
      BENCH_ABUSE_KEY: abuser.key,
      BENCH_ABUSE_PERSONA: abuser.personaId,
      BENCH_ABUSE_POLITE: polite ? '1' : '0',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise((r) => child.once('message', r));
  await new Promise((r) => setTimeout(r, 2000)); // the clients under way
  const figures = await sample(base, call, ROUNDS);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return figures;
}

/**
 * The "under abuse" row: /healthz p99 and a well-behaved session's time to first audio (p95), first
 * alone, then beside another account's polite clients (the same talk, keeping the rules: the
 * machine's floor for that much traffic), then while that account's abusive clients run (one stream
 * flooding frames, one never reading; each reconnecting as soon as it is dropped). Target: each
 * within 1.5× the same figure alone, in one run; where the polite twins already cost more than that,
 * the floor is theirs.
 */
export async function underAbuse(
  base: string,
  key: string,
  session: (userId: string) => Promise<string>,
  abuser: { key: string; personaId: string },
) {
  const call = await openCall(base, await session('bench-bystander'), key);
  await sample(base, call, 5);
  const calm = await sample(base, call, ROUNDS);
  const polite = await sampleBeside(base, call, abuser, true);
  const abused = await sampleBeside(base, call, abuser, false);
  call.end();
  return { calm, polite, abused };
}

/** Another account, for the abusive clients: its test key and a persona. */
export async function abusiveAccount(base: string, dataDir: string) {
  const token = await signDevToken(dataDir, 'abuser@example.com');
  const request = benchRequester(base);
  const key = (await request('POST', '/api/v1/developers/keys', token, { name: 'x', environment: 'test' }))
    .key;
  const manifest = completeManifest('bench-abuser');
  const persona = (await request('POST', '/api/v1/developers/personas', token, { manifest })).persona;
  return { key: key.fullKey as string, personaId: persona.id as string };
}
