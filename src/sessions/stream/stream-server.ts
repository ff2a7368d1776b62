import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { platformAuthenticator, requireScope } from '../../auth/platform-auth';
import { RetryableRefusal, spendRefusedCredential } from '../../auth/refused-credentials';
import type { AppContext } from '../../common/context';
import { LiveCalls, SHUTDOWN_WAIT_MS } from '../../common/live-calls';
import type { Owner } from '../../common/owner';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseUnavailable,
  isDatabaseUnavailable,
} from '../../http/database-unavailable';
import { ApiError, notFound, planLimitReached, unauthorized } from '../../http/errors';
import { refuseUpgrade } from '../../http/upgrade-refusal';
import { sessionManifest } from '../../personas';
import { voiceStreamUpgrades } from '../../telemetry/metrics';
import { Session } from '../session.entity';
import { sessionSpeechToText, sessionVoiceId } from '../session-stack';
import { verifyClientToken } from './client-token';
import { MAX_AUDIO_FRAME_BYTES } from './protocol';
import { coolDownSecondsLeft, coolingDown } from './stream-cooldown';
import { releaseStreamLease, takeStreamLease } from './stream-leases';
import { VoiceCall } from './voice-call';

/** `GET /api/v2/developers/sessions/:id/stream`, upgraded to a WebSocket. */
const STREAM_PATH = /^\/api\/v2\/developers\/sessions\/([A-Za-z0-9_]{1,64})\/stream$/;
/** Frames past this size close the connection; a frame up to it but over the protocol's limit is an `error`. */
const MAX_PAYLOAD_BYTES = 4 * MAX_AUDIO_FRAME_BYTES;

/**
 * Refuses an upgrade before any WebSocket data: an HTTP answer with the API's error body (and
 * `Retry-After` when the caller is asked to come back, as the REST API's 503 does).
 */
function refuse(socket: Duplex, error: ApiError, retryAfterSeconds?: number): void {
  voiceStreamUpgrades.labels(refusalOutcome(error)).inc();
  refuseUpgrade(socket, error, retryAfterSeconds);
}

/** A refused upgrade as `voice_stream_upgrades_total` counts it. */
function refusalOutcome(error: ApiError): string {
  if (error.code === 'PLAN_LIMIT_REACHED') return 'plan_limit';
  const byStatus: Record<number, string> = {
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    409: 'ended',
    429: 'rate_limited',
    503: 'unavailable',
  };
  return byStatus[error.status] ?? 'error';
}

/**
 * Who may open the stream: `?token=` (a client token of this session, for browsers, which cannot set
 * headers on a WebSocket), else `Authorization: Bearer pk_…` with the `sessions:write` scope. A
 * refused credential (401) spends its address's budget, as on the REST API: past it, a 429.
 */
async function authorize(
  ctx: AppContext,
  req: http.IncomingMessage,
  url: URL,
  sessionId: string,
): Promise<Owner> {
  const token = url.searchParams.get('token');
  try {
    if (token !== null) {
      const verified = verifyClientToken(ctx.encryptor, token, sessionId);
      if (!verified.ok) throw unauthorized(verified.reason);
      return verified.owner;
    }
    const auth = await platformAuthenticator(ctx)(req as never);
    requireScope(auth, 'sessions:write'); // a 403: the key is valid, so nothing is spent
    return auth;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      await spendRefusedCredential(ctx.rateLimits, req, ctx.config.trustProxy);
    }
    throw error;
  }
}

/**
 * The live voice streams of this API process (docs/voice-stream.md), on the HTTP server's own port
 * (the `ws` package): each upgrade is authorized and its session found (owned by the caller, active)
 * before the WebSocket opens; then a VoiceCall serves it.
 */
export function sessionStreams(ctx: AppContext) {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_PAYLOAD_BYTES,
    perMessageDeflate: false,
  });
  const calls = new LiveCalls();
  return {
    /** The HTTP server's `upgrade` listener. */
    async handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
      // the HTTP server no longer listens for this socket's errors: a reset while it is authorized
      // must not crash the process
      socket.on('error', () => socket.destroy());
      const url = new URL(req.url ?? '/', 'http://localhost');
      const match = STREAM_PATH.exec(url.pathname);
      if (!match) return refuse(socket, notFound('Route'));
      const sessionId = match[1];
      try {
        const owner = await authorize(ctx, req, url, sessionId);
        // an account in its cool-down is refused on one read, before its session is looked up
        const wait = await coolDownSecondsLeft(ctx, owner.accountId);
        if (wait !== null) throw coolingDown(wait, 'stream');
        const em = ctx.orm.em.fork();
        const session = await em.findOne(Session, {
          id: sessionId,
          account: owner.accountId,
          environment: owner.environment,
        });
        if (!session) throw notFound('Session');
        if (session.status !== 'active')
          throw new ApiError(409, 'CONFLICT', `Session ${sessionId} has ended`);
        const manifest = await sessionManifest(em, session);
        const speechToText = (await sessionSpeechToText(ctx, owner.accountId, manifest)) ?? null;
        // one of the account's live-stream slots, held by the call until it closes
        const leaseId = randomUUID();
        const lease = await takeStreamLease(ctx, { leaseId, accountId: owner.accountId, sessionId });
        if (!lease.ok && 'coolingDownS' in lease) throw coolingDown(lease.coolingDownS, 'stream');
        if (!lease.ok)
          throw planLimitReached(`The ${lease.plan} plan allows ${lease.limit} live streams at once`);
        if (socket.destroyed) return void (await releaseStreamLease(ctx, leaseId));
        wss.handleUpgrade(req, socket, head, (ws) => {
          voiceStreamUpgrades.labels('opened').inc();
          const call = new VoiceCall(ctx, ws, {
            sessionId,
            owner,
            plan: lease.plan,
            leaseId,
            greeting: session.greeting,
            voiceId: sessionVoiceId(manifest),
            speechToText,
            backchannels: manifest.behaviors?.backchannels ?? [],
            keypad: manifest.telephony?.keypad,
            transferDestinations: manifest.telephony?.transferDestinations ?? [],
            recording: session.recording,
          });
          calls.add(call);
          call.start().catch((error) => call.failToStart(error));
        });
      } catch (error) {
        if (error instanceof RetryableRefusal) return refuse(socket, error, error.retryAfterSeconds);
        if (error instanceof ApiError) return refuse(socket, error);
        if (isDatabaseUnavailable(error)) {
          ctx.logger.warn(
            { err: error, sessionId },
            'a voice stream was refused: the database is unavailable',
          );
          return refuse(socket, databaseUnavailable(), DATABASE_RETRY_AFTER_SECONDS);
        }
        ctx.logger.error({ err: error, sessionId }, 'a voice stream upgrade failed');
        refuse(socket, new ApiError(500, 'INTERNAL', 'Internal error'));
      }
    },
    /** Closes every live stream, and resolves once each call has ended (its turn under way recorded as interrupted). */
    async close(): Promise<void> {
      wss.close();
      if (!(await calls.shutdown())) {
        ctx.logger.warn(
          { waitMs: SHUTDOWN_WAIT_MS },
          'some live streams had not ended when the shutdown stopped waiting',
        );
      }
    },
  };
}

export type SessionStreams = ReturnType<typeof sessionStreams>;
