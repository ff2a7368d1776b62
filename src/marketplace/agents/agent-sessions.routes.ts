import { z } from 'zod';
import type { MarketplaceUser } from '../../auth/marketplace-auth';
import type { AppContext } from '../../common/context';
import type { ApiRoot } from '../../http/api-router';
import { ok } from '../../http/envelope';
import { SessionDetailEnvelope, SessionEnvelope, TurnBody, TurnEnvelope } from '../../sessions';
import { TierHeaders } from '../execution/execution.schemas';
import { agentTurn, endAgentSession, getAgentSession, startAgentSession } from './agent-sessions.service';

const AgentParams = z.object({ itemId: z.string().min(1).max(64) });
const AgentSessionParams = AgentParams.extend({ sessionId: z.string().min(1).max(64) });
const StartAgentSessionBody = z
  .strictObject({
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .refine((m) => m === undefined || JSON.stringify(m).length <= 8192, 'must be at most 8 KiB as JSON')
      .meta({ description: 'Anything you want to keep with the session (at most 8 KiB)' }),
  })
  .meta({ id: 'StartAgentSessionRequest' });

/** Installed marketplace agents as voice sessions (src/marketplace/agents/agent-sessions.service.ts). */
export function mountAgentSessionRoutes(user: ApiRoot<MarketplaceUser>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  user
    .route({
      method: 'post',
      path: '/agents/:itemId/sessions',
      summary: 'Start a voice session with an installed agent',
      description:
        'The agent’s persona greets the caller; the model is offered the marketplace tools the user installed. Not installed → 403; removed → 410.',
      params: AgentParams,
      headers: TierHeaders,
      body: StartAgentSessionBody,
      rateClass: 'expensive',
      success: { status: 201, description: 'The session, with the greeting', schema: SessionEnvelope },
      handler: async ({ auth, params, headers, body }) =>
        ok(
          await startAgentSession(ctx, em(), {
            itemId: params.itemId,
            userId: auth.userId,
            tier: headers['x-subscription-tier'],
            metadata: body.metadata,
          }),
        ),
    })
    .route({
      method: 'get',
      path: '/agents/:itemId/sessions/:sessionId',
      summary: 'A session with an agent, with its transcript',
      params: AgentSessionParams,
      success: { description: 'The session and every turn', schema: SessionDetailEnvelope },
      handler: async ({ auth, params }) =>
        ok(await getAgentSession(em(), params.itemId, auth.userId, params.sessionId)),
    })
    .route({
      method: 'post',
      path: '/agents/:itemId/sessions/:sessionId/turns',
      summary: 'Say something to an installed agent (one metered turn)',
      description:
        'Counted against the user’s monthly quota for the agent first (429 `QUOTA_EXCEEDED` past it), then answered like a platform session turn.',
      params: AgentSessionParams,
      headers: TierHeaders,
      body: TurnBody,
      rateClass: 'expensive',
      success: { description: 'The turn: the reply and the actions taken', schema: TurnEnvelope },
      handler: async ({ auth, params, headers, body, res }) =>
        ok(
          await agentTurn(
            ctx,
            em(),
            {
              itemId: params.itemId,
              userId: auth.userId,
              tier: headers['x-subscription-tier'],
              sessionId: params.sessionId,
              turn: body,
            },
            res,
          ),
        ),
    })
    .route({
      method: 'post',
      path: '/agents/:itemId/sessions/:sessionId/end',
      summary: 'End a session with an agent',
      params: AgentSessionParams,
      success: { description: 'The ended session', schema: SessionEnvelope },
      handler: async ({ auth, params, res }) =>
        ok(await endAgentSession(ctx, em(), params.itemId, auth.userId, params.sessionId, res)),
    });
}
