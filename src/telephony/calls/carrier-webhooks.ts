import { type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import { type CarrierStatus, carrierStatusSignal } from '../../../workflows/messages';
import type { AppContext } from '../../common/context';
import { ApiError, forbidden, notFound } from '../../http/errors';
import { carrierFor } from '../carriers/carrier-for';
import { openCredentials } from '../phone-numbers/carrier-credentials';
import { PhoneNumber } from '../phone-numbers/phone-number.entity';
import { publicBaseUrl } from '../phone-numbers/phone-numbers.service';
import { loadCall } from './call-steps';

const pnId = z.string().regex(/^pn_[A-Za-z0-9]{1,56}$/);
const callIdQuery = z.object({
  callId: z
    .string()
    .regex(/^call_[A-Za-z0-9]{1,56}$/)
    .optional(),
});

/**
 * The number a webhook's path names (`:phoneNumberId`), its carrier client, and the request's raw
 * body, once the carrier's signature over it is checked: 404 for no such number (or one of another
 * carrier than the path's), 403 for a bad, missing or stale signature; nothing is done then.
 */
export async function signedRequest(ctx: AppContext, req: Request, provider: PhoneNumber['provider']) {
  const id = pnId.safeParse(req.params.phoneNumberId);
  const number = id.success ? await ctx.orm.em.fork().findOne(PhoneNumber, { id: id.data }) : null;
  if (!number || number.provider !== provider) throw notFound('Phone number');
  const carrier = carrierFor(ctx.config, openCredentials(ctx.encryptor, number));
  const rawBody = typeof req.body === 'string' ? req.body : '';
  const url = publicBaseUrl(ctx.config) + req.originalUrl;
  if (!carrier?.verifyWebhook({ url, headers: req.headers, rawBody }))
    throw forbidden('Invalid or missing carrier signature');
  return { number, carrier, rawBody };
}

/**
 * Passes a carrier's status of a call to the call's workflow (which merges it: forward only, once).
 * The call is the one the query's `callId` names (an outbound call's status URL) if it is the
 * number's, else the number's call with that carrier id; false if neither.
 */
export function signalCarrierStatus(
  ctx: AppContext,
  req: Request,
  number: PhoneNumber,
  status: CarrierStatus & { carrierCallId: string },
): Promise<boolean> {
  return signalCall(ctx, req, number, status.carrierCallId, (handle) =>
    handle.signal(carrierStatusSignal, status),
  );
}

/**
 * Sends a carrier webhook's news to its call's workflow: the call the query's `callId` names (a call
 * the platform placed) if it is the number's, else the number's call with that carrier id. False
 * when there is none; a workflow already over takes nothing (a late webhook changes nothing).
 */
export async function signalCall(
  ctx: AppContext,
  req: Request,
  number: PhoneNumber,
  carrierCallId: string,
  send: (handle: WorkflowHandle) => Promise<void>,
): Promise<boolean> {
  const query = callIdQuery.safeParse(req.query);
  const knex = ctx.orm.em.getConnection().getKnex();
  const byQuery = query.success && query.data.callId ? await loadCall(ctx, query.data.callId) : undefined;
  const callId =
    byQuery?.phone_number_id === number.id
      ? byQuery.id
      : (
          await knex.raw<{ rows: { id: string }[] }>(
            'select id from calls where phone_number_id = ? and carrier_call_id = ? limit 1',
            [number.id, carrierCallId],
          )
        ).rows[0]?.id;
  if (!callId) return false;
  try {
    await send(ctx.temporal.workflow.getHandle(callId));
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  return true;
}

/** Runs a webhook's handler, answering an error with the project's error body (a carrier shows it). */
export const webhookHandler =
  (ctx: AppContext, handle: (ctx: AppContext, req: Request, res: Response) => Promise<void>) =>
  (req: Request, res: Response, next: NextFunction) => {
    handle(ctx, req, res).catch((error) => {
      if (error instanceof ApiError) res.status(error.status).json(error.toBody());
      else next(error);
    });
  };
