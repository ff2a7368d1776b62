import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import { deleteSession } from './session-deletion';
import { listSessions } from './session-list';
import {
  ClientTokenEnvelope,
  DeletedSessionEnvelope,
  ListSessionsQuery,
  SessionContextEnvelope,
  SessionDetailEnvelope,
  SessionEnvelope,
  SessionIdParams,
  SessionList,
  StartSessionBody,
  TurnAudio,
  TurnAudioParams,
  TurnAudioQuery,
  TurnBody,
  TurnEnvelope,
} from './sessions.schemas';
import {
  clientToken,
  endSession,
  getSession,
  sessionContext,
  startSession,
  takeTurn,
  turnAudio,
} from './sessions.service';
import { refuseSessionWhileCoolingDown } from './stream/stream-cooldown';

export function mountSessionRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/sessions',
      idempotent: true,
      summary: 'Start a voice session with a persona',
      description:
        'A `pk_live_` key may start sessions only with published personas (409 otherwise); a `pk_test_` key with any persona of the account. An account whose live streams were dropped for abuse a moment ago starts none until its cool-down is over: 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`. Emits `session.started`. The session is a Temporal workflow whose id is the session id.',
      scope: 'sessions:write',
      body: StartSessionBody,
      success: {
        status: 201,
        description: 'The session, with the greeting to speak first',
        schema: SessionEnvelope,
      },
      handler: async ({ auth, body }) => {
        await refuseSessionWhileCoolingDown(ctx, auth.accountId);
        return ok(await startSession(ctx, em(), auth, body));
      },
    })
    .route({
      method: 'get',
      path: '/sessions',
      summary: 'List sessions',
      description:
        'The sessions of agent-test runs (`testRunId` set) are left out unless `includeTestRuns=true`; console test calls are listed like any session of the environment.',
      scope: 'sessions:read',
      query: ListSessionsQuery,
      success: { description: 'Sessions, newest first', schema: SessionList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listSessions(em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/sessions/:id',
      summary: 'Get a session with its transcript',
      scope: 'sessions:read',
      params: SessionIdParams,
      success: { description: 'The session and every turn', schema: SessionDetailEnvelope },
      handler: async ({ auth, params }) => ok(await getSession(em(), auth, params.id)),
    })
    .route({
      method: 'delete',
      path: '/sessions/:id',
      summary: 'Delete an ended session',
      description:
        'Deletes the session with its transcript, recordings, tool calls and post-call analysis, and its workflow history in Temporal; it leaves the analytics too. An active session → 409 (end it first). Events already sent stay sent.',
      scope: 'sessions:write',
      params: SessionIdParams,
      success: { description: 'Deleted', schema: DeletedSessionEnvelope },
      handler: async ({ auth, params }) => ok(await deleteSession(ctx, em(), auth, params.id)),
    })
    .route({
      method: 'post',
      path: '/sessions/:id/turns',
      summary: 'Say something to the agent',
      description:
        'The agent answers, in order: a `voice_command` workflow whose trigger matches runs (its `speak` steps are the reply); else, with an LLM configured, one chat completion with every custom and MCP tool as functions (tool calls run, at most 3 rounds); else a reply naming the voice commands it knows. An out-of-scope topic of the persona gets a polite refusal, with no model or tool. A model failure is a spoken fallback with `error` set. An ended session → 409.',
      scope: 'sessions:write',
      rateClass: 'standard',
      params: SessionIdParams,
      body: TurnBody,
      success: { description: 'The turn: the reply and the actions taken', schema: TurnEnvelope },
      handler: async ({ auth, params, body, res }) =>
        ok(await takeTurn(ctx, em(), auth, params.id, body, res)),
    })
    .route({
      method: 'post',
      path: '/sessions/:id/end',
      summary: 'End a session',
      description:
        'Emits `session.ended` (`duration` in ms, `turnCount`). Ending an ended session answers it as it is.',
      scope: 'sessions:write',
      params: SessionIdParams,
      success: { description: 'The ended session', schema: SessionEnvelope },
      handler: async ({ auth, params, res }) => ok(await endSession(ctx, em(), auth, params.id, res)),
    })
    .route({
      method: 'get',
      path: '/sessions/:id/context',
      summary: 'What the next turn will send to the model',
      description:
        'The system prompt (the persona, and the caller’s 20 most recent activities of this persona or of none), the tools offered, and the conversation so far.',
      scope: 'sessions:read',
      params: SessionIdParams,
      success: { description: 'The agent’s context', schema: SessionContextEnvelope },
      handler: async ({ auth, params }) => ok(await sessionContext(ctx, em(), auth, params.id)),
    })
    .route({
      method: 'post',
      path: '/sessions/:id/client-token',
      summary: 'A client token for a browser to open the session’s live stream',
      description:
        'For `GET /sessions/:id/stream?token=…` (WebSocket; docs/voice-stream.md): valid 5 minutes, for this one session only, so an API key never goes to a browser.',
      scope: 'sessions:write',
      rateClass: 'write',
      params: SessionIdParams,
      success: { status: 201, description: 'The token and when it expires', schema: ClientTokenEnvelope },
      handler: async ({ auth, params }) => ok(await clientToken(ctx, em(), auth, params.id)),
    })
    .route({
      method: 'get',
      path: '/sessions/:id/turns/:index/audio',
      summary: 'A recorded turn’s audio (MP3)',
      description:
        'For sessions with `recording: true`: the caller’s words (`side=caller`, streamed audio turns) or the reply as spoken (`side=agent`). Kept RECORDING_RETENTION_DAYS. 404 when there is none.',
      scope: 'sessions:read',
      params: TurnAudioParams,
      query: TurnAudioQuery,
      success: { description: '`audio/mpeg`', schema: TurnAudio },
      handler: async ({ auth, params, query, res }) => {
        await turnAudio(em(), auth, params.id, params.index, query.side, res);
        return '';
      },
    });
}
