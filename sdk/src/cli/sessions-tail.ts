import type { ResultOf } from '../operation-types';
import {
  type CliCommand,
  interruptSignal,
  intervalOption,
  parseCommandArgs,
  pollUntil,
  turns,
} from './command';
import { clientFromConfig } from './config';

const HELP = `Usage: vp sessions tail <sessionId> [--interval MS]

Prints a session's transcript, the greeting then each caller and agent line, and follows it as
turns are taken (by a live stream, the REST API or a phone call) until the session ends, by
polling GET /sessions/:id. Ctrl-C stops it (the session goes on).

Options:
  --interval MS    how often to poll (default 1000)`;

const OPTIONS = { interval: { type: 'string' } } as const;

type Session = ResultOf<'sessions.get'>;
type Turn = Session['transcript'][number];

function turnLines(turn: Turn): string {
  const reply = turn.interrupted ? `${turn.spokenText} [interrupted]` : turn.reply.text;
  const error = turn.error ? `  (error: ${turn.error})` : '';
  return `user:  ${turn.text}\nagent: ${reply}${error}\n`;
}

export const sessionsTailCommand: CliCommand = {
  words: ['sessions', 'tail'],
  summary: "Follow a session's transcript, line by line",
  help: HELP,
  async run(args) {
    const parsed = parseCommandArgs(args, OPTIONS, ['sessionId']);
    const sessionId = parsed.positionals[0]!;
    const intervalMs = intervalOption(parsed.values.interval, 1000);
    const client = clientFromConfig();
    const interrupt = interruptSignal();
    let printed = -1; // the highest turn index printed
    let headed = false; // the session line and the greeting are printed
    const round = async () => {
      const session = await client.sessions.get(sessionId, undefined, { signal: interrupt.signal });
      if (!headed) {
        headed = true;
        process.stderr.write(`Session ${session.id} with ${session.personaId} (${session.status})\n`);
        if (session.greeting) process.stdout.write(`agent: ${session.greeting}\n`);
      }
      const fresh = session.transcript.filter((turn) => turn.index > printed);
      for (const turn of fresh.sort((a, b) => a.index - b.index)) {
        process.stdout.write(turnLines(turn));
        printed = turn.index;
      }
      if (session.status !== 'ended') return false;
      const reason = session.endReason ? `: ${session.endReason}` : '';
      process.stderr.write(`Session ended${reason} (${turns(session.turnCount)})\n`);
      return true;
    };
    try {
      await pollUntil(round, intervalMs, interrupt.signal);
      return 0;
    } catch (error) {
      if (interrupt.signal.aborted) return 0;
      throw error;
    } finally {
      interrupt.dispose();
    }
  },
};
