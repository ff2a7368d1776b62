import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { platformAuthenticator, requireScope } from '../auth/platform-auth';
import { RetryableRefusal, spendRefusedCredential } from '../auth/refused-credentials';
import type { AppContext } from '../common/context';
import { newId } from '../common/ids';
import type { Owner } from '../common/owner';
import { EVENT_TYPES } from '../events/catalog';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseUnavailable,
  isDatabaseUnavailable,
} from '../http/database-unavailable';
import { ApiError, notFound, validationFailed } from '../http/errors';
import { refuseUpgrade } from '../http/upgrade-refusal';
import { startActivityWorker } from '../temporal/worker';
import { attemptDelivery } from './attempt';
import { connectListener, disconnectListener } from './listener-endpoint';
import { ListenerAnswer, WebhookListeners } from './listeners';

/** `GET /api/v2/developers/webhooks/listen`, upgraded to a WebSocket (docs/webhooks.md "vp listen"). */
export const LISTEN_PATH = '/api/v2/developers/webhooks/listen';
/** A CLI that answers no ping for this long is gone: its socket is closed, its subscription ended. */
const PING_INTERVAL_MS = 20_000;
/** Close codes: another `vp listen` took the account's listener over; this server is going away. */
export const CLOSE_REPLACED = 4001;
const CLOSE_GOING_AWAY = 1001;

const ListenQuery = z.strictObject({
  events: z
    .string()
    .max(4_000)
    .transform((list) =>
      list
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(EVENT_TYPES)).min(1))
    .optional(),
});

/** Who listens, with which events: an API key with `webhooks:write` (a refused one spends its budget). */
async function authorize(ctx: AppContext, req: http.IncomingMessage, url: URL) {
  const parsed = ListenQuery.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) {
    throw validationFailed(parsed.error.issues.map((i) => `${['query', ...i.path].join('.')}: ${i.message}`));
  }
  try {
    const auth = await platformAuthenticator(ctx)(req as never);
    requireScope(auth, 'webhooks:write');
    return { owner: auth as Owner, events: [...new Set(parsed.data.events ?? EVENT_TYPES)] };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401)
      await spendRefusedCredential(ctx.rateLimits, req, ctx.config.trustProxy);
    throw error;
  }
}

/**
 * The `vp listen` sockets of this API process: each upgrade is authorized, the account's listening
 * endpoint connected to it (listener-endpoint.ts), and its deliveries' attempts run here, on this
 * process's own task queue (an activity worker started with the first listener), where the socket is.
 */
export function webhookListenStreams(ctx: AppContext) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 128 * 1024, perMessageDeflate: false });
  const listeners = new WebhookListeners();
  const knex = ctx.orm.em.getConnection().getKnex();
  const taskQueue = `${ctx.config.temporal.taskQueues.deliveries}-listen-${randomBytes(6).toString('hex')}`;
  const sockets = new Set<WebSocket>();
  let worker: Promise<{ stop(): Promise<void> }> | undefined;
  const startWorker = () => {
    worker ??= startActivityWorker({
      logger: ctx.logger,
      address: ctx.temporalAddress ?? ctx.config.temporal.address ?? '127.0.0.1:7233',
      namespace: ctx.config.temporal.namespace,
      taskQueue,
      activities: {
        attemptDelivery: (input: Parameters<typeof attemptDelivery>[1]) =>
          attemptDelivery({ knex, encryptor: ctx.encryptor, config: ctx.config, listeners }, input),
      },
    }).catch((error) => {
      worker = undefined;
      throw error;
    });
    return worker;
  };

  const serve = (ws: WebSocket, owner: Owner, events: string[]) => {
    const connectionId = newId('lsn');
    sockets.add(ws);
    let webhookId: string | undefined;
    let alive = true;
    const ping = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, PING_INTERVAL_MS);
    ws.on('pong', () => {
      alive = true;
    });
    ws.on('message', (data, isBinary) => {
      const parsed = isBinary ? undefined : safeJson(data.toString());
      const answer = ListenerAnswer.safeParse(parsed);
      if (!answer.success) return sendError(ws, 'INVALID_MESSAGE', answer.error.issues);
      listeners.answer(connectionId, answer.data);
    });
    ws.on('close', () => {
      clearInterval(ping);
      sockets.delete(ws);
      if (!webhookId) return;
      listeners.detach(webhookId, connectionId);
      disconnectListener(knex, webhookId, connectionId).catch((error) =>
        ctx.logger.warn({ err: error, webhookId }, 'a listener could not be disconnected'),
      );
    });
    return connectListener(knex, ctx.encryptor, owner, { events, taskQueue, connectionId }).then(
      ({ webhookId: id, secret }) => {
        webhookId = id;
        if (ws.readyState !== ws.OPEN) return disconnectListener(knex, id, connectionId);
        listeners.attach(id, {
          id: connectionId,
          send: (text) => ws.send(text),
          replaced: () => ws.close(CLOSE_REPLACED, 'Another vp listen took over this account'),
        });
        ws.send(JSON.stringify({ type: 'listen.ready', webhookId: id, events, secret }));
      },
    );
  };

  return {
    async handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
      socket.on('error', () => socket.destroy());
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== LISTEN_PATH) return refuseUpgrade(socket, notFound('Route'));
      try {
        const { owner, events } = await authorize(ctx, req, url);
        await startWorker(); // the queue is served before any delivery can be sent to it
        if (socket.destroyed) return;
        wss.handleUpgrade(req, socket, head, (ws) => {
          serve(ws, owner, events).catch((error) => {
            ctx.logger.error({ err: error }, 'a listener could not connect');
            ws.close(1011, 'The listener could not connect');
          });
        });
      } catch (error) {
        if (error instanceof RetryableRefusal) return refuseUpgrade(socket, error, error.retryAfterSeconds);
        if (error instanceof ApiError) return refuseUpgrade(socket, error);
        if (isDatabaseUnavailable(error))
          return refuseUpgrade(socket, databaseUnavailable(), DATABASE_RETRY_AFTER_SECONDS);
        ctx.logger.error({ err: error }, 'a vp listen upgrade failed');
        refuseUpgrade(socket, new ApiError(500, 'INTERNAL', 'Internal error'));
      }
    },
    /** Closes every listener (its subscription ended) and stops this process's listener worker. */
    async close(): Promise<void> {
      const closed = [...sockets].map((ws) => new Promise((r) => ws.once('close', r)));
      for (const ws of sockets) ws.close(CLOSE_GOING_AWAY, 'The server is going away');
      await Promise.race([Promise.all(closed), new Promise((r) => setTimeout(r, 2_000))]);
      wss.close();
      await (await worker?.catch(() => undefined))?.stop();
    },
  };
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

function sendError(ws: WebSocket, code: string, issues: z.core.$ZodIssue[]): void {
  const message = issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; ');
  ws.send(JSON.stringify({ type: 'error', code, message }));
}

export type WebhookListenStreams = ReturnType<typeof webhookListenStreams>;
