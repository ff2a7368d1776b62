import type { PlatformAuth } from '../../auth/platform-auth';
import type { AppContext } from '../../common/context';
import type { ApiRoot } from '../../http/api-router';
import { ok, paged } from '../../http/envelope';
import {
  CreatePhoneNumberBody,
  DeletedPhoneNumber,
  ListPhoneNumbersQuery,
  PhoneNumberEnvelope,
  PhoneNumberIdParams,
  PhoneNumberList,
  UpdatePhoneNumberBody,
} from './phone-numbers.schemas';
import {
  createPhoneNumber,
  deletePhoneNumber,
  getPhoneNumber,
  listPhoneNumbers,
  updatePhoneNumber,
} from './phone-numbers.service';

/** Phone numbers (docs/api-contract.md "Phone numbers"): a carrier's number put on a persona. */
export function mountPhoneNumberRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/phone-numbers',
      idempotent: true,
      summary: 'Add a phone number',
      description:
        "A Twilio or Telnyx number answered by a persona. The carrier account's credentials are encrypted at rest and never returned. Paste `inboundUrl` into the carrier's console. The same number twice in one environment → 409.",
      scope: 'phone:write',
      body: CreatePhoneNumberBody,
      success: { status: 201, description: 'The phone number', schema: PhoneNumberEnvelope },
      handler: async ({ auth, body }) => ok(await createPhoneNumber(ctx, em(), auth, body)),
    })
    .route({
      method: 'get',
      path: '/phone-numbers',
      summary: 'List phone numbers',
      scope: 'phone:read',
      query: ListPhoneNumbersQuery,
      success: { description: 'Phone numbers, newest first', schema: PhoneNumberList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listPhoneNumbers(ctx, em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/phone-numbers/:id',
      summary: 'Get a phone number',
      scope: 'phone:read',
      params: PhoneNumberIdParams,
      success: { description: 'The phone number (no credentials)', schema: PhoneNumberEnvelope },
      handler: async ({ auth, params }) => ok(await getPhoneNumber(ctx, em(), auth, params.id)),
    })
    .route({
      method: 'put',
      path: '/phone-numbers/:id',
      summary: 'Update a phone number',
      description:
        "Replaces the fields given: `name`, `personaId` (checked as at creation), `credentials` (in the shape of the number's provider). The number and its provider do not change.",
      scope: 'phone:write',
      params: PhoneNumberIdParams,
      body: UpdatePhoneNumberBody,
      success: { description: 'The phone number', schema: PhoneNumberEnvelope },
      handler: async ({ auth, params, body }) =>
        ok(await updatePhoneNumber(ctx, em(), auth, params.id, body)),
    })
    .route({
      method: 'delete',
      path: '/phone-numbers/:id',
      summary: 'Delete a phone number',
      description: 'Its credentials are deleted with it; the carrier keeps the number.',
      scope: 'phone:write',
      params: PhoneNumberIdParams,
      success: { description: 'Deleted', schema: DeletedPhoneNumber },
      handler: async ({ auth, params }) => ok(await deletePhoneNumber(em(), auth, params.id)),
    });
}
