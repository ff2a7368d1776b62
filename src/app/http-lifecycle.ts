import type http from 'node:http';
import { answerClientError, createHttpServer } from '../http/node-server';
import type { Logger } from '../logging/logger';
import type { SessionStreams } from '../sessions';

/**
 * The HTTP server's life in a process: listening (with the live streams' WebSocket upgrades on the
 * same port), closing once every live call has ended, and leaving on SIGTERM/SIGINT.
 */
export function listen(
  app: Parameters<typeof createHttpServer>[0],
  host: string,
  port: number,
  streams?: SessionStreams,
): Promise<http.Server> {
  return new Promise((resolve, reject) => {
    const server = createHttpServer(app);
    server.keepAliveTimeout = 65_000; // longer than common load balancers' idle timeout
    server.on('clientError', answerClientError);
    // the live voice streams: WebSocket upgrades on the API's own port
    if (streams) {
      server.on('upgrade', (req, socket, head) => void streams.handleUpgrade(req, socket, head));
      server.on('close', () => void streams.close());
    }
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/**
 * Stops the HTTP server: no new connections, idle ones closed, in-flight requests finish, and every
 * live call ends (each records its turn under way as interrupted) before the caller goes on to close
 * the Temporal and database connections those calls use.
 */
export async function closeServer(server: http.Server, streams?: SessionStreams): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const callsEnded = streams?.close();
  server.closeIdleConnections();
  await Promise.all([closed, callsEnded]);
}

/** SIGTERM/SIGINT: run `shutdown` (stop, drain) and exit 0; exit 1 past 9.5 s: the process leaves within 10 s. */
export function onShutdownSignal(logger: Logger, shutdown: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown took longer than 9.5 s: exiting');
      process.exit(1);
    }, 9_500).unref();
    shutdown().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
