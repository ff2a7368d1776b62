import { createInterface } from 'node:readline';
import { VoicePlatform } from '../client';
import { ForbiddenError } from '../errors';
import { type CliCommand, parseCommandArgs, UsageError } from './command';
import { DEFAULT_BASE_URL, keptListenSecrets, normalizeBaseUrl, readConfig, writeConfig } from './config';

const HELP = `Usage: vp login [--api-key KEY] [--base-url URL]

Checks an API key against the platform and stores it, with the base URL, in
$XDG_CONFIG_HOME/voice-platform/config.json (else ~/.config/voice-platform/config.json),
readable by you only (0600). Without --api-key the key is read from stdin (typed, or piped:
\`echo "$KEY" | vp login\`), so it stays out of your shell history.

Options:
  --api-key KEY    the API key (pk_live_… or pk_test_…)
  --base-url URL   where the platform is (default: VP_BASE_URL, else the stored one, else ${DEFAULT_BASE_URL})`;

const OPTIONS = {
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
} as const;

/** Reads a line from the terminal without showing it (raw mode); Ctrl-C or Ctrl-D cancels. */
function readHiddenLine(prompt: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(text);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003' || char === '\u0004') return finish(new UsageError('Login cancelled'));
        if (char === '\u007f' || char === '\b') text = text.slice(0, -1);
        else if (char >= ' ') text += char;
      }
    };
    input.on('data', onData);
  });
}

/** The API key from stdin: typed at a hidden prompt, or the first line of what is piped in. */
async function readKeyFromStdin(): Promise<string> {
  if (process.stdin.isTTY) return readHiddenLine('API key: ');
  const lines = createInterface({ input: process.stdin, terminal: false });
  try {
    for await (const line of lines) if (line.trim()) return line.trim();
    return '';
  } finally {
    lines.close();
  }
}

/** A short form of a key that shows which one it is without showing it. */
const maskKey = (key: string) => (key.length > 16 ? `${key.slice(0, 8)}…${key.slice(-4)}` : '…');

/**
 * One authenticated GET: `webhooks.list` with `limit: 1`. A 401 throws (the key is wrong); a 403
 * means the key is genuine but lacks `webhooks:read`, which is no reason to refuse the login.
 */
async function verifyKey(apiKey: string, baseUrl: string): Promise<string | undefined> {
  const client = new VoicePlatform({ apiKey, baseUrl, maxRetries: 1 });
  try {
    await client.webhooks.list({ limit: 1 });
    return undefined;
  } catch (error) {
    if (error instanceof ForbiddenError) return `the key has no webhooks:read scope (${error.message})`;
    throw error;
  }
}

export const loginCommand: CliCommand = {
  words: ['login'],
  summary: 'Check an API key and store it with the base URL',
  help: HELP,
  async run(args) {
    const parsed = parseCommandArgs(args, OPTIONS, []);
    const env = process.env;
    const baseUrl = normalizeBaseUrl(
      parsed.values['base-url'] ?? (env.VP_BASE_URL?.trim() || readConfig().baseUrl || DEFAULT_BASE_URL),
    );
    const apiKey = (parsed.values['api-key'] ?? (await readKeyFromStdin())).trim();
    if (!apiKey) throw new UsageError('No API key: give --api-key or type it on stdin');
    const note = await verifyKey(apiKey, baseUrl);
    const file = writeConfig({ apiKey, baseUrl, listenSecrets: keptListenSecrets() });
    process.stdout.write(`Logged in to ${baseUrl} with ${maskKey(apiKey)}\nSaved to ${file}\n`);
    if (note) process.stderr.write(`vp: note: ${note}\n`);
    if (env.VP_API_KEY?.trim())
      process.stderr.write('vp: note: VP_API_KEY is set and overrides this login\n');
    return 0;
  },
};
