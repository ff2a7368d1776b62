import { createInterface } from 'node:readline';
import { VoicePlatformError } from '../errors';
import type { SessionStream, StreamEventOf } from '../stream';
import { type CliCommand, interruptSignal, parseCommandArgs, turns } from './command';
import { clientFromConfig } from './config';

const HELP = `Usage: vp call <personaId> [--user ID]

Talks to an agent by text: starts a session with the persona, opens its live stream, and sends
each line you type as a turn; the agent's reply is printed as it streams. End of input (Ctrl-D)
or Ctrl-C ends the session. Lines can be piped in too: \`printf 'Hi\\nBye\\n' | vp call persona_…\`.

Options:
  --user ID    your id for the caller (default: vp-cli); their activities feed the agent's context`;

const OPTIONS = { user: { type: 'string' } } as const;
const END_WAIT_MS = 10_000;

/** Prints the agent's replies as they stream: `agent: ` then the deltas, a newline when done. */
function printReplies(stream: SessionStream): void {
  let open: string | undefined; // the turn whose reply is being printed
  stream.on('reply.delta', (event) => {
    if (open !== event.turnId) process.stdout.write(`${open ? '\n' : ''}agent: `);
    open = event.turnId;
    process.stdout.write(event.text);
  });
  stream.on('reply.done', (event) => {
    // a reply that came whole (the greeting, a voice command's speech) has no deltas
    if (open === event.turnId) process.stdout.write(event.interrupted ? ' [interrupted]\n' : '\n');
    else if (event.text) process.stdout.write(`agent: ${event.text}\n`);
    open = undefined;
  });
  stream.on('tool.started', (event) => process.stderr.write(`  [tool ${event.name} started]\n`));
  stream.on('error', (event) => process.stderr.write(`vp: stream error ${event.code}: ${event.message}\n`));
}

type Outcome = 'recorded' | 'refused' | 'closed' | 'interrupted';

/** Sends one line as a turn and waits until it is recorded (or refused, or the stream is gone). */
function takeTurn(stream: SessionStream, text: string, signal: AbortSignal): Promise<Outcome> {
  const waits: Promise<Outcome>[] = [
    stream.next('turn.recorded').then(() => 'recorded' as const),
    stream.next('error').then(() => 'refused' as const),
    stream.closed.then(() => 'closed' as const),
    new Promise((resolve) => signal.addEventListener('abort', () => resolve('interrupted'), { once: true })),
  ];
  stream.sendText(text);
  return Promise.race(waits);
}

/** Ends the session and waits (a while) for `session.ended`. */
async function endSession(stream: SessionStream): Promise<StreamEventOf<'session.ended'> | undefined> {
  const ended = stream.next('session.ended');
  stream.end();
  let stopWaiting = () => {};
  const timeout = new Promise<undefined>((resolve) => {
    stopWaiting = () => resolve(undefined);
  });
  const timer = setTimeout(stopWaiting, END_WAIT_MS);
  const closed = stream.closed.then(() => undefined);
  const event = await Promise.race([ended, closed, timeout]);
  clearTimeout(timer);
  stream.close();
  return event;
}

/** Reads stdin line by line and takes each as a turn, until end of input, Ctrl-C or a closed stream. */
async function converse(stream: SessionStream, signal: AbortSignal): Promise<'ended' | 'closed'> {
  if (signal.aborted) return 'ended'; // Ctrl-C during the greeting
  const lines = createInterface({ input: process.stdin, terminal: false });
  signal.addEventListener('abort', () => lines.close(), { once: true });
  let closed = false;
  stream.closed.then(() => {
    closed = true;
    lines.close();
  });
  try {
    for await (const line of lines) {
      const text = line.trim();
      if (signal.aborted) break;
      if (!text) continue;
      const outcome = await takeTurn(stream, text, signal);
      if (outcome === 'closed' || outcome === 'interrupted') break;
    }
  } finally {
    lines.close();
  }
  return closed ? 'closed' : 'ended';
}

export const callCommand: CliCommand = {
  words: ['call'],
  summary: 'Talk to an agent by text, its replies streamed',
  help: HELP,
  async run(args) {
    const parsed = parseCommandArgs(args, OPTIONS, ['personaId']);
    const client = clientFromConfig();
    const personaId = parsed.positionals[0]!;
    const session = await client.sessions.create({ personaId, userId: parsed.values.user ?? 'vp-cli' });
    const stream = await client.sessions.stream(session.id).catch(async (error: unknown) => {
      // no stream, no call: end the session rather than leave it to its idle timeout
      await client.sessions.end(session.id).catch(() => undefined);
      throw error;
    });
    const interrupt = interruptSignal();
    try {
      printReplies(stream);
      const sessionEnded = stream.next('session.ended');
      const ready = await stream.ready;
      process.stderr.write(`Session ${session.id}: type a line and press Enter; Ctrl-D or Ctrl-C ends it\n`);
      if (ready.greeting) await Promise.race([stream.next('reply.done'), stream.closed]);
      if ((await converse(stream, interrupt.signal)) === 'closed') {
        const ended = await Promise.race([sessionEnded, Promise.resolve(undefined)]);
        if (!ended) throw new VoicePlatformError(`The live stream closed (code ${await stream.closed})`);
        process.stderr.write(`Session ended: ${ended.reason} (${turns(ended.turnCount)})\n`);
        return 0;
      }
      const ended = await endSession(stream);
      process.stderr.write(ended ? `Session ended (${turns(ended.turnCount)})\n` : 'Session end requested\n');
      return 0;
    } finally {
      interrupt.dispose();
    }
  },
};
