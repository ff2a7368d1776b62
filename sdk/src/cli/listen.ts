import { VoicePlatformError } from '../errors';
import {
  type CliCommand,
  describeError,
  interruptSignal,
  isTransient,
  parseCommandArgs,
  pause,
  UsageError,
} from './command';
import { type Credentials, resolveCredentials, storedListenSecret, storeListenSecret } from './config';
import {
  type DeliveryMessage,
  deliveryLine,
  forwardDelivery,
  parseServerMessage,
  type ReadyMessage,
} from './listen-forward';
import { type CliWebSocket, type CloseInfo, connectWebSocket } from './websocket';

const HELP = `Usage: vp listen --forward-to URL [--events TYPES] [--print-secret]

Receives your account's webhook events on this machine, like \`stripe listen\`: it opens a
WebSocket to the platform, which sends each event to it as a signed delivery, and POSTs each one,
its body byte for byte and its headers (signature included), to --forward-to. The local server's
answer is the delivery's attempt, in the delivery log. One \`vp listen\` per account: a new one
takes over. Ctrl-C ends the subscription; nothing queues while no \`vp listen\` runs.

The signing secret of the listening endpoint is shown when the platform creates it, and stored
with your login (0600) so later runs show it too.

Options:
  --forward-to URL   where to POST each delivery (http or https), e.g. http://localhost:4242/webhooks
  --events TYPES     comma-separated event types to receive (default: every type)
  --print-secret     print the signing secret and exit`;

const OPTIONS = {
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  'print-secret': { type: 'boolean' },
} as const;

/** Close codes after which `vp listen` connects again: the server going away or restarting, a cut. */
const RECONNECT_CODES = new Set([1001, 1006, 1011, 1012, 1013]);
/** The server closes with this when another `vp listen` of the account took over. */
const TAKEN_OVER = 4001;
const BACKOFF_MS = { first: 500, max: 30_000 };

interface ListenOptions {
  credentials: Credentials;
  forwardTo: URL | undefined;
  events: string[] | undefined;
  printSecret: boolean;
  signal: AbortSignal;
}

/** `ws(s)://…/api/v2/developers/webhooks/listen[?events=a,b]` of the base URL. */
export function listenUrl(baseUrl: string, events: string[] | undefined): string {
  const url = `${baseUrl.replace(/^http/, 'ws')}/api/v2/developers/webhooks/listen`;
  return events ? `${url}?events=${events.map(encodeURIComponent).join(',')}` : url;
}

function forwardUrl(value: string | undefined, printSecret: boolean): URL | undefined {
  if (value === undefined) {
    if (printSecret) return undefined;
    throw new UsageError('Missing --forward-to URL (where to POST each delivery)');
  }
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new UsageError(`--forward-to must be an http(s) URL: ${value}`);
  return url;
}

function eventTypes(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const types = value
    .split(',')
    .map((type) => type.trim())
    .filter(Boolean);
  if (types.length === 0) throw new UsageError('--events needs at least one event type');
  return types;
}

/** The signing secret of `listen.ready`: the one just given (then stored), else the stored one. */
function readySecret(ready: ReadyMessage, baseUrl: string): string | undefined {
  try {
    if (ready.secret) storeListenSecret(baseUrl, ready.webhookId, ready.secret);
    return ready.secret ?? storedListenSecret(baseUrl, ready.webhookId);
  } catch (error) {
    // the config cannot be read or written: a secret given now is still shown (it is shown once)
    process.stderr.write(
      `vp: the listen secret could not be ${ready.secret ? 'stored' : 'read'}: ${describeError(error)}\n`,
    );
    return ready.secret ?? undefined;
  }
}

const unknownSecret = (webhookId: string) =>
  `The signing secret of ${webhookId} was shown when it was first created (on another machine, or ` +
  'before this config) and cannot be shown again.';

/** Prints what `listen.ready` says: the secret (or why it is unknown), what is forwarded where. */
function announce(ready: ReadyMessage, secret: string | undefined, options: ListenOptions): void {
  if (secret) process.stdout.write(`Ready! Your webhook signing secret is ${secret} (^C to quit)\n`);
  else process.stdout.write(`Ready! (^C to quit)\n${unknownSecret(ready.webhookId)}\n`);
  const events = ready.events.length > 0 ? ready.events.join(', ') : 'every event type';
  process.stdout.write(`Forwarding ${events} to ${options.forwardTo} (webhook ${ready.webhookId})\n`);
}

/** Forwards a delivery without holding up the socket, answers it, and prints its line. */
function handleDelivery(socket: CliWebSocket, delivery: DeliveryMessage, options: ListenOptions): void {
  void forwardDelivery(options.forwardTo!, delivery, options.signal).then((answer) => {
    if (options.signal.aborted) return;
    socket.send(JSON.stringify(answer));
    process.stdout.write(deliveryLine(delivery, answer));
  });
}

interface Served {
  close: CloseInfo;
  /** `listen.ready` came: the subscription was made. */
  ready: boolean;
  /** `--print-secret`'s outcome: 0 when it printed the secret, 1 when it is not known here. */
  printed?: 0 | 1;
}

/** One connection, from its open to its close (by the server, by Ctrl-C, or after `--print-secret`). */
function serve(socket: CliWebSocket, options: ListenOptions): Promise<Served> {
  const served: Omit<Served, 'close'> = { ready: false };
  const onAbort = () => socket.close(1000);
  if (options.signal.aborted) onAbort();
  options.signal.addEventListener('abort', onAbort, { once: true });
  socket.onMessage((text) => {
    const message = parseServerMessage(text);
    if (!message)
      process.stderr.write(`vp: ignored a message this vp does not know: ${text.slice(0, 200)}\n`);
    else if (message.type === 'error') process.stderr.write(`vp: ${message.code}: ${message.message}\n`);
    else if (message.type === 'delivery' && options.forwardTo) handleDelivery(socket, message, options);
    else if (message.type === 'listen.ready') {
      served.ready = true;
      const secret = readySecret(message, options.credentials.baseUrl);
      if (!options.printSecret) return announce(message, secret, options);
      if (secret) process.stdout.write(`${secret}\n`);
      else process.stderr.write(`vp: ${unknownSecret(message.webhookId)}\n`);
      served.printed = secret ? 0 : 1;
      socket.close(1000);
    }
  });
  return socket.closed.then((close) => {
    options.signal.removeEventListener('abort', onAbort);
    return { ...served, close };
  });
}

const why = (close: CloseInfo) => (close.reason ? `: ${close.reason}` : '');

/** Waits before reconnect number `retry` (0, 1, …): 0.5 s, then doubling up to 30 s. */
function reconnectPause(retry: number, signal: AbortSignal): Promise<void> {
  return pause(Math.min(BACKOFF_MS.first * 2 ** retry, BACKOFF_MS.max), signal);
}

/** Connects, serves, and connects again after a server restart or a cut, until Ctrl-C or a final close. */
async function listen(options: ListenOptions): Promise<number> {
  const url = listenUrl(options.credentials.baseUrl, options.events);
  const headers = { authorization: `Bearer ${options.credentials.apiKey}` };
  let connectedOnce = false; // the first connection's failure is final
  let retries = 0; // reconnects since the last `listen.ready`
  while (!options.signal.aborted) {
    let socket: CliWebSocket;
    try {
      socket = await connectWebSocket(url, headers);
    } catch (error) {
      if (options.signal.aborted) return 0;
      if (!connectedOnce || !isTransient(error)) throw error;
      process.stderr.write(`${describeError(error)}\nreconnecting…\n`);
      await reconnectPause(retries++, options.signal);
      continue;
    }
    connectedOnce = true;
    const served = await serve(socket, options);
    if (served.printed !== undefined) return served.printed;
    if (options.signal.aborted) return 0;
    if (served.ready) retries = 0;
    const { close } = served;
    if (close.code === TAKEN_OVER) {
      process.stderr.write(`vp: another \`vp listen\` for this account took over${why(close)}\n`);
      return 1;
    }
    if (!RECONNECT_CODES.has(close.code)) {
      throw new VoicePlatformError(
        `The platform closed the listen connection (code ${close.code}${why(close)})`,
      );
    }
    const cause = close.code === 1001 ? 'the platform is going away' : 'the connection was cut';
    process.stderr.write(`vp: ${cause} (code ${close.code}${why(close)}); reconnecting…\n`);
    await reconnectPause(retries++, options.signal);
  }
  return 0;
}

export const listenCommand: CliCommand = {
  words: ['listen'],
  summary: 'Forward your webhook events to a local server',
  help: HELP,
  async run(args) {
    const parsed = parseCommandArgs(args, OPTIONS, []);
    const printSecret = parsed.values['print-secret'] ?? false;
    const forwardTo = forwardUrl(parsed.values['forward-to'], printSecret);
    const events = eventTypes(parsed.values.events);
    const credentials = resolveCredentials();
    const interrupt = interruptSignal();
    try {
      return await listen({ credentials, forwardTo, events, printSecret, signal: interrupt.signal });
    } finally {
      interrupt.dispose();
    }
  },
};
