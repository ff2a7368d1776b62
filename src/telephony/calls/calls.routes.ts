import type { PlatformAuth } from '../../auth/platform-auth';
import type { AppContext } from '../../common/context';
import type { ApiRoot } from '../../http/api-router';
import { ok, paged } from '../../http/envelope';
import {
  CallEnvelope,
  CallIdParams,
  CallList,
  CallRecording,
  ListCallsQuery,
  PlaceCallBody,
} from './calls.schemas';
import { getCall, hangUpCall, listCalls, placeCall, sendRecording } from './calls.service';

/** Calls (docs/api-contract.md "Calls"): outbound calls placed, and every call listed, inbound too. */
export function mountCallRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/calls',
      idempotent: true,
      summary: 'Place a call',
      description:
        "Calls `to` from the number, with its persona (or `personaId`). The destination must be in a country the account allows (default: the number's own) and not premium-rate or shared-cost; each plan caps calls at once and calls a day. Answers the call `queued`; its workflow places it.",
      scope: 'phone:write',
      body: PlaceCallBody,
      success: { status: 201, description: 'The call, queued', schema: CallEnvelope },
      handler: async ({ auth, body }) => ok(await placeCall(ctx, em(), auth, body)),
    })
    .route({
      method: 'get',
      path: '/calls',
      summary: 'List calls',
      scope: 'phone:read',
      query: ListCallsQuery,
      success: { description: 'Calls, newest first', schema: CallList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listCalls(em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/calls/:id',
      summary: 'Get a call',
      scope: 'phone:read',
      params: CallIdParams,
      success: { description: 'The call', schema: CallEnvelope },
      handler: async ({ auth, params }) => ok(await getCall(em(), auth, params.id)),
    })
    .route({
      method: 'post',
      path: '/calls/:id/hangup',
      summary: 'Hang up a call',
      description:
        'Ends the call through the carrier (one not placed yet is canceled). An ended call answers as it is.',
      scope: 'phone:write',
      params: CallIdParams,
      success: { description: 'The call', schema: CallEnvelope },
      handler: async ({ auth, params }) => ok(await hangUpCall(ctx, em(), auth, params.id)),
    })
    .route({
      method: 'get',
      path: '/calls/:id/recording',
      summary: "A call's recording (WAV, two channels)",
      description:
        "With the persona's `recording` on: the whole call, 8 kHz, the caller's side left and the agent's right, on one timeline (the agent's audio as the caller heard it: what a barge-in cut off is not in it). Written while the call goes on, five seconds at a time; kept RECORDING_RETENTION_DAYS. 404 when there is none.",
      scope: 'phone:read',
      params: CallIdParams,
      success: { description: '`audio/wav`', schema: CallRecording },
      handler: async ({ auth, params, res }) => {
        await sendRecording(em(), auth, params.id, res);
        return '';
      },
    });
}
