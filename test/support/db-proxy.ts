import net from 'node:net';

export interface DatabaseProxy {
  /** The database's URL with the proxy's host and port: what the processes under test connect to. */
  url: string;
  /** Connections open through the proxy now (each client side counted once). */
  connections(): number;
  /** The outage: every open connection is cut and the port refuses new ones (ECONNREFUSED). */
  refuse(): Promise<void>;
  /** The end of the outage: the proxy listens on the same port again. */
  restore(): Promise<void>;
  /**
   * Arms a tripwire: on a connection that has sent a message matching `after`, the first later
   * message matching `at` is not forwarded and the outage begins (as refuse()). Resolves once tripped.
   * `after: /insert into "sessions"/, at: /commit/i` cuts a transaction between its writes and its
   * COMMIT. With `after: null`, the first message matching `at` on any connection trips it.
   */
  refuseAt(after: RegExp | null, at: RegExp): Promise<void>;
  close(): Promise<void>;
}

/** Ports below Linux's ephemeral range (32768+), so no outgoing connection takes ours while it is closed. */
const PORT_RANGE = { from: 20_000, to: 32_000 };

/**
 * A TCP proxy in front of PostgreSQL that a test or bench points the API and workers at, to give them
 * a real network-level outage without root and without stopping the server the other tests share:
 * `refuse()` closes the listening socket (new connections get ECONNREFUSED, as from a stopped server)
 * and destroys every open connection (as a crash or a cut network does); `restore()` listens again on
 * the same port. (test/security.test.ts has a variant that keeps listening and drops connections.)
 */
export async function startDatabaseProxy(databaseUrl: string): Promise<DatabaseProxy> {
  const target = new URL(databaseUrl);
  const targetPort = Number(target.port || 5432);
  const clients = new Set<net.Socket>();
  const upstreams = new Set<net.Socket>();
  let tripwire: { after: RegExp | null; at: RegExp; seenOn: WeakSet<net.Socket>; trip(): void } | undefined;
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, target.hostname);
    for (const [socket, set] of [
      [client, clients],
      [upstream, upstreams],
    ] as const) {
      set.add(socket);
      socket.on('close', () => set.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      if (tripwire) {
        const text = chunk.toString('latin1');
        if ((tripwire.after === null || tripwire.seenOn.has(client)) && tripwire.at.test(text)) {
          tripwire.trip();
          return;
        }
        if (tripwire.after?.test(text)) tripwire.seenOn.add(client);
      }
      if (!upstream.write(chunk)) {
        client.pause();
        upstream.once('drain', () => client.resume());
      }
    });
  });
  const port = await listenInRange(server);
  let closedForGood = false;
  const cut = () => {
    for (const socket of [...clients, ...upstreams]) socket.destroy();
  };
  const refuse = async () => {
    if (!server.listening) return;
    const closed = new Promise((resolve) => server.close(resolve));
    cut();
    await closed;
  };
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    connections: () => clients.size,
    refuse,
    refuseAt: (after, at) =>
      new Promise<void>((resolve) => {
        tripwire = {
          after,
          at,
          seenOn: new WeakSet(),
          trip: () => {
            tripwire = undefined;
            void refuse().then(resolve);
          },
        };
      }),
    restore: async () => {
      if (server.listening || closedForGood) return; // after close(), never listen again
      await listenOn(server, port, 10_000);
    },
    close: async () => {
      closedForGood = true;
      tripwire = undefined;
      const closed = server.listening ? new Promise((resolve) => server.close(resolve)) : undefined;
      cut();
      await closed;
    },
  };
}

async function listenInRange(server: net.Server): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    try {
      await listenOn(server, port, 0);
      return port;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  throw new Error('no free port for the database proxy');
}

/** Listens on `port`, retrying while it is in use for up to `patienceMs`. */
async function listenOn(server: net.Server, port: number, patienceMs: number): Promise<void> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || Date.now() >= deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * knex reports each pooled connection an outage cuts with console.log ("Connection Error: …"); a test
 * that cuts connections on purpose drops those lines and keeps every other. Undone by
 * jest.restoreAllMocks().
 */
export function quietCutConnectionLogs(): void {
  const log = console.log;
  jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    if (!String(args[0]).startsWith('Connection Error')) log(...args);
  });
}
