import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import type { AppContext } from '../../common/context';
import { findOwned, listOwned } from '../../common/owned';
import type { Owner } from '../../common/owner';
import type { Config } from '../../config/env';
import { conflict } from '../../http/errors';
import { personaForSession } from '../../personas';
import { parseCredentials, sealCredentials } from './carrier-credentials';
import { type Carrier, PhoneNumber } from './phone-number.entity';
import type {
  CreatePhoneNumberInput,
  ListPhoneNumbersInput,
  UpdatePhoneNumberInput,
} from './phone-numbers.schemas';

type Ctx = Pick<AppContext, 'config' | 'encryptor'>;

/** The service's public base URL, without a trailing slash: PUBLIC_URL, else `http://localhost:PORT`. */
export function publicBaseUrl(config: Pick<Config, 'publicUrl' | 'port'>): string {
  return (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
}

/** Where the carrier sends a number's incoming calls: `inboundUrl` (`/api/v2/telephony/<provider>/voice/<pn_id>`). */
export const inboundUrlOf = (
  config: Pick<Config, 'publicUrl' | 'port'>,
  n: Pick<PhoneNumber, 'id' | 'provider'>,
) => `${publicBaseUrl(config)}/api/v2/telephony/${n.provider}/voice/${n.id}`;

/** Where the carrier posts a number's call status changes: `statusCallbackUrl`. */
export const statusCallbackUrlOf = (
  config: Pick<Config, 'publicUrl' | 'port'>,
  n: Pick<PhoneNumber, 'id' | 'provider'>,
) => `${publicBaseUrl(config)}/api/v2/telephony/${n.provider}/status/${n.id}`;

/** Where a carrier posts who answered an outbound call (Twilio's asynchronous AMD). */
export const answeredByCallbackUrlOf = (
  config: Pick<Config, 'publicUrl' | 'port'>,
  n: Pick<PhoneNumber, 'id' | 'provider'>,
) => `${publicBaseUrl(config)}/api/v2/telephony/${n.provider}/answered-by/${n.id}`;

/**
 * Where a carrier asks for a warm transfer's whisper (`whisper`) and says its dial ended
 * (`dial-ended`); the query names the call and the transfer.
 */
export const warmTransferUrlOf = (
  config: Pick<Config, 'publicUrl' | 'port'>,
  n: Pick<PhoneNumber, 'id' | 'provider'>,
  step: 'whisper' | 'dial-ended',
  ids: { callId: string; requestId: string },
) =>
  `${publicBaseUrl(config)}/api/v2/telephony/${n.provider}/transfer/${step}/${n.id}?${new URLSearchParams({ callId: ids.callId, transfer: ids.requestId })}`;

/** The record as the API shows it: never the credentials. */
export function phoneNumberView(config: Pick<Config, 'publicUrl' | 'port'>, n: PhoneNumber) {
  return {
    id: n.id,
    number: n.number,
    provider: n.provider,
    personaId: n.personaId,
    name: n.name,
    inboundUrl: inboundUrlOf(config, n),
    statusCallbackUrl: statusCallbackUrlOf(config, n),
    createdAt: n.createdAt.toISOString(),
    updatedAt: n.updatedAt.toISOString(),
  };
}

export const findPhoneNumber = (em: EntityManager, owner: Owner, id: string, opts: { lock?: boolean } = {}) =>
  findOwned(em, PhoneNumber, owner, id, 'Phone number', opts);

/**
 * The persona a number of `owner`'s environment may answer with, checked as a session start checks
 * it (personaForSession): another account's is a 404; a live number needs a live (approved)
 * persona, else the sessions' 409 CONFLICT; a test number may have a draft.
 */
async function checkPersona(em: EntityManager, owner: Owner, personaId: string): Promise<void> {
  await personaForSession(em, { accountId: owner.accountId, environment: owner.environment, personaId });
}

const duplicate = (owner: Owner, number: string) =>
  conflict(`${number} is already a phone number of this account in the ${owner.environment} environment`);

export async function createPhoneNumber(
  ctx: Ctx,
  em: EntityManager,
  owner: Owner,
  input: CreatePhoneNumberInput,
) {
  await checkPersona(em, owner, input.personaId);
  try {
    const created = await em.transactional(async (tem) => {
      const n = tem.create(PhoneNumber, {
        account: owner.accountId,
        environment: owner.environment,
        number: input.number,
        provider: input.provider,
        personaId: input.personaId,
        name: input.name ?? null,
        credentialsCiphertext: '',
      });
      n.credentialsCiphertext = sealCredentials(ctx.encryptor, n, input.credentials);
      return n;
    });
    return phoneNumberView(ctx.config, created);
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw duplicate(owner, input.number);
    throw error;
  }
}

export async function listPhoneNumbers(
  ctx: Ctx,
  em: EntityManager,
  owner: Owner,
  query: ListPhoneNumbersInput,
) {
  const where: { provider?: Carrier; personaId?: string } = {};
  if (query.provider) where.provider = query.provider;
  if (query.personaId) where.personaId = query.personaId;
  const { items, total } = await listOwned(em, PhoneNumber, owner, query, where);
  return { data: items.map((n) => phoneNumberView(ctx.config, n)), total };
}

export async function getPhoneNumber(ctx: Ctx, em: EntityManager, owner: Owner, id: string) {
  return phoneNumberView(ctx.config, await findPhoneNumber(em, owner, id));
}

/**
 * PUT: the fields given replace the stored ones (`credentials` in the shape of the number's
 * provider); the number and its provider never change. A new persona is checked as at creation.
 */
export async function updatePhoneNumber(
  ctx: Ctx,
  em: EntityManager,
  owner: Owner,
  id: string,
  changes: UpdatePhoneNumberInput,
) {
  if (changes.personaId !== undefined) await checkPersona(em, owner, changes.personaId);
  const updated = await em.transactional(async (tem) => {
    const n = await findPhoneNumber(tem, owner, id, { lock: true });
    const credentials =
      changes.credentials === undefined ? undefined : parseCredentials(n.provider, changes.credentials);
    if (changes.name !== undefined) n.name = changes.name;
    if (changes.personaId !== undefined) n.personaId = changes.personaId;
    if (credentials) n.credentialsCiphertext = sealCredentials(ctx.encryptor, n, credentials);
    n.updatedAt = new Date();
    return n;
  });
  return phoneNumberView(ctx.config, updated);
}

export async function deletePhoneNumber(em: EntityManager, owner: Owner, id: string) {
  await em.transactional(async (tem) => {
    // locked: of concurrent deletes one deletes it, the others then find nothing (404)
    tem.remove(await findPhoneNumber(tem, owner, id, { lock: true }));
  });
  return { deleted: true as const, id };
}
