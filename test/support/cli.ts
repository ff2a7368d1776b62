import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type WebSocket, WebSocketServer } from 'ws';

const ROOT = path.resolve(__dirname, '..', '..');
/** The built `vp` (the bin of sdk/package.json). */
export const VP_BIN = path.join(ROOT, 'sdk', 'dist', 'cjs', 'cli', 'main.js');

/** Builds the SDK with its CLI (CI's `npm run build` has done it already). */
export function buildCli(): void {
  if (process.env.CI === 'true' && fs.existsSync(VP_BIN)) return;
  execFileSync('npm', ['run', '-s', 'build', '-w', 'sdk'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A fresh config home (XDG_CONFIG_HOME) for `vp`, so no test reads or writes the user's. */
export const newConfigHome = () => fs.mkdtempSync(path.join(os.tmpdir(), 'vp-cli-config-'));

/** `vp`'s environment: the test's, without VP_* (unless given), with its own config home. */
function cliEnv(configHome: string, env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VP_')));
  return { ...base, XDG_CONFIG_HOME: configHome, ...env };
}

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout (or stderr) matches `pattern`; rejects after `timeoutMs` or on exit. */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr', timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The exit code, once it exits. */
  exited: Promise<number | null>;
}

/** Starts `node sdk/dist/cjs/cli/main.js …args` as a child process. */
export function startCli(
  args: string[],
  opts: { configHome: string; env?: Record<string, string> },
): RunningCli {
  const child = spawn(process.execPath, [VP_BIN, ...args], { env: cliEnv(opts.configHome, opts.env ?? {}) });
  const text = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    text.stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    text.stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waitFor = (pattern: RegExp, stream: 'stdout' | 'stderr' = 'stdout', timeoutMs = 30_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      let gone = false;
      exited.then(() => {
        gone = true;
      });
      const check = () => {
        const match = text[stream].match(pattern);
        if (match) return resolve(match);
        if (gone || Date.now() > deadline) {
          const why = gone ? 'vp exited' : `not within ${timeoutMs} ms`;
          return reject(
            new Error(`${why}: ${pattern} in ${stream}\nstdout: ${text.stdout}\nstderr: ${text.stderr}`),
          );
        }
        setTimeout(check, 50);
      };
      check();
    });
  return { child, stdout: () => text.stdout, stderr: () => text.stderr, waitFor, exited };
}

/** Runs `vp` to its end, with `input` on its stdin. */
export async function runCli(
  args: string[],
  opts: { configHome: string; env?: Record<string, string>; input?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(args, opts);
  cli.child.stdin.end(opts.input ?? '');
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** One `vp listen` connection to the listen double: what it asked for, what it sent, how it closed. */
export interface ListenConnection {
  url: URL;
  headers: http.IncomingHttpHeaders;
  socket: WebSocket;
  /** The next message from `vp` of `type` not yet taken (in order of arrival). */
  next(type: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  send(message: object): void;
  /** The close code the connection ended with. */
  closed: Promise<number>;
}

export interface ListenDouble {
  baseUrl: string;
  /** The next connection, once its upgrade was accepted. */
  nextConnection(timeoutMs?: number): Promise<ListenConnection>;
  close(): Promise<void>;
}

/** A key the listen double refuses with 403, answered in the flat error shape of src/http/upgrade-refusal.ts. */
export const LISTEN_KEY_WITHOUT_SCOPE = 'pk_test_listen_without_scope';

/** The plain HTTP answer refusing an upgrade, or undefined to accept it. */
function upgradeRefusal(authorization: string | undefined, pathname: string, apiKey: string) {
  const answer = (status: string, body: object, headers = '') => {
    const text = JSON.stringify(body);
    return `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n${headers}Connection: close\r\n\r\n${text}`;
  };
  if (authorization === `Bearer ${LISTEN_KEY_WITHOUT_SCOPE}`) {
    const body = { success: false, error: 'This key lacks the webhooks:write scope', code: 'FORBIDDEN' };
    return answer('403 Forbidden', body, 'X-Request-Id: req_flat\r\n');
  }
  const nested = (code: string, message: string) => ({
    success: false,
    error: { code, message, requestId: 'req_double' },
  });
  if (authorization !== `Bearer ${apiKey}`)
    return answer('401 Unauthorized', nested('UNAUTHORIZED', 'Invalid API key'));
  if (pathname !== '/api/v2/developers/webhooks/listen')
    return answer('404 Not Found', nested('NOT_FOUND', 'No such route'));
  return undefined;
}

/**
 * The platform's side of `vp listen` (docs/cli.md "vp listen"), on a loopback port: it accepts the
 * WebSocket upgrade of `/api/v2/developers/webhooks/listen` with `Bearer <apiKey>` and refuses any
 * other as the API does (a plain HTTP answer with the error body); the test drives each connection.
 */
export async function startListenDouble(apiKey: string): Promise<ListenDouble> {
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  const arrived: ListenConnection[] = [];
  let wake = () => {};
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://double');
    const refusal = upgradeRefusal(req.headers.authorization, url.pathname, apiKey);
    if (refusal) {
      socket.end(refusal);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      arrived.push(listenConnection(ws, url, req.headers));
      wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async nextConnection(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (arrived.length === 0) {
        if (Date.now() > deadline) throw new Error(`no vp listen connection within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
      return arrived.shift()!;
    },
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function listenConnection(socket: WebSocket, url: URL, headers: http.IncomingHttpHeaders): ListenConnection {
  const messages: Record<string, unknown>[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  const next = async (type: string, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = messages.findIndex((message) => message.type === type);
      if (index >= 0) return messages.splice(index, 1)[0]!;
      if (Date.now() > deadline) throw new Error(`no ${type} message from vp within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return { url, headers, socket, next, send: (message) => socket.send(JSON.stringify(message)), closed };
}
