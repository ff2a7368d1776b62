#!/usr/bin/env node
/**
 * `vp`: the platform from a terminal (issue 44 item 3, docs/cli.md). The bin of
 * @voice-platform/sdk; every command talks to the platform through the SDK's own client.
 */
import { callCommand } from './call';
import { type CliCommand, describeError, UsageError } from './command';
import { listenCommand } from './listen';
import { loginCommand } from './login';
import { logsTailCommand } from './logs-tail';
import { sessionsTailCommand } from './sessions-tail';
import { triggerCommand } from './trigger';

/** Every command, in the order `vp --help` lists them. */
const COMMANDS: CliCommand[] = [
  loginCommand,
  triggerCommand,
  logsTailCommand,
  listenCommand,
  sessionsTailCommand,
  callCommand,
];

const name = (command: CliCommand) => command.words.join(' ');

export function overviewHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => name(c).length));
  return [
    'Usage: vp <command> [options]',
    '',
    'The Voice Agent Developer Platform from a terminal.',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${name(c).padEnd(width)}  ${c.summary}`),
    '',
    'Run `vp <command> --help` for its options.',
    'VP_API_KEY and VP_BASE_URL override the login stored by `vp login`.',
  ].join('\n');
}

/** The command named by the first words of `argv`, with the arguments after them. */
function findCommand(argv: string[]): { command: CliCommand; args: string[] } | undefined {
  const byLength = [...COMMANDS].sort((a, b) => b.words.length - a.words.length);
  const command = byLength.find((c) => c.words.every((word, i) => argv[i] === word));
  return command && { command, args: argv.slice(command.words.length) };
}

/** `--help` or `-h` among the arguments (before a `--`, after which all are positionals). */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** Runs `vp` with its arguments; resolves with the exit code (0, 1 for a failure, 2 for a usage error). */
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || ['--help', '-h', 'help'].includes(argv[0]!)) {
    (argv.length === 0 ? process.stderr : process.stdout).write(`${overviewHelp()}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    const group = COMMANDS.filter((c) => c.words.length > 1 && c.words[0] === argv[0]).map(name);
    const hint = group.length > 0 ? `; did you mean ${group.join(', ')}?` : '; see `vp --help`';
    process.stderr.write(`vp: unknown command: ${argv.slice(0, 2).join(' ')}${hint}\n`);
    return 2;
  }
  if (asksForHelp(found.args)) {
    process.stdout.write(`${found.command.help}\n\nOptions for every command:\n  -h, --help   this help\n`);
    return 0;
  }
  try {
    return await found.command.run(found.args);
  } catch (error) {
    process.stderr.write(`${describeError(error)}\n`);
    if (!(error instanceof UsageError)) return 1;
    process.stderr.write(`Run \`vp ${name(found.command)} --help\` for its usage.\n`);
    return 2;
  }
}

main(process.argv.slice(2)).then((code) => {
  // exit once what was written has gone out (stdin may still hold the loop open)
  process.stdout.write('', () => process.exit(code));
});
