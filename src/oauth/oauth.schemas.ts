import { z } from 'zod';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../http/envelope';
import { TOKEN_STATUSES } from './statuses';

const url = z.string().max(2048);
const scopes = z.array(z.string().min(1).max(200)).max(50);

export const CreateProviderBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).meta({ example: 'Google Calendar' }),
    authorizationUrl: url,
    tokenUrl: url,
    revocationUrl: url.nullable().optional(),
    clientId: z.string().min(1).max(512),
    clientSecret: z
      .string()
      .min(1)
      .max(4096)
      .meta({ writeOnly: true, description: 'Stored encrypted, never returned' }),
    scopes: scopes.optional().meta({ description: 'Default scopes requested' }),
    authorizeParams: z
      .record(z.string().max(100), z.string().max(1000))
      .optional()
      .meta({ description: 'Extra authorize parameters, e.g. {"access_type":"offline","prompt":"consent"}' }),
  })
  .meta({ id: 'CreateOAuthProviderRequest' });
export type CreateProviderInput = z.infer<typeof CreateProviderBody>;

export const UpdateProviderBody = CreateProviderBody.partial()
  .refine((b) => Object.keys(b).length > 0, {
    message: 'at least one field to change is required',
    path: ['body'],
  })
  .meta({ id: 'UpdateOAuthProviderRequest' });
export type UpdateProviderInput = z.infer<typeof UpdateProviderBody>;

export const OAuthProviderRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    authorizationUrl: z.string(),
    tokenUrl: z.string(),
    revocationUrl: z.string().nullable(),
    clientId: z.string(),
    scopes: z.array(z.string()),
    authorizeParams: z.record(z.string(), z.string()),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'OAuthProvider' });

export const AuthorizeBody = z
  .strictObject({
    providerId: z.string().max(64),
    scopes: scopes.optional().meta({ description: 'Defaults to the provider scopes' }),
    redirectUri: url.optional().meta({
      description:
        'Where the provider sends the user back; defaults to this API’s /oauth/callback. A redirect elsewhere must pass code and state to /oauth/callback.',
    }),
  })
  .meta({ id: 'OAuthAuthorizeRequest' });
export type AuthorizeInput = z.infer<typeof AuthorizeBody>;

export const AuthorizeResult = z
  .object({
    authorizationUrl: z
      .string()
      .meta({ description: 'Send the user here (carries state and a PKCE S256 challenge)' }),
    state: z.string(),
    redirectUri: z.string(),
    expiresAt: timestamp(),
  })
  .meta({ id: 'OAuthAuthorization' });

export const CallbackQuery = z.object({
  code: z.string().min(1).max(4096).optional(),
  state: z.string().min(1).max(128),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2000).optional(),
  scope: z.string().max(4000).optional(),
  iss: z.string().max(2048).optional(),
});

export const OAuthTokenRecord = z
  .object({
    id: z.string(),
    providerId: z.string(),
    providerName: z.string().nullable(),
    scopes: z.array(z.string()),
    tokenType: z.string(),
    expiresAt: timestamp().nullable(),
    refreshable: z.boolean(),
    status: z.enum(TOKEN_STATUSES).meta({
      description: '`expired` tokens with a refresh token are refreshed automatically on their next use',
    }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'OAuthToken', description: 'A connected account; the token itself is never returned' });

export const IdParams = z.object({ id: z.string().max(64) });
export const ListQuery = z.strictObject({ ...paginationQuery });

export const ProviderEnvelope = envelopeOf(OAuthProviderRecord);
export const ProviderList = pagedEnvelopeOf(OAuthProviderRecord);
export const DeletedProvider = envelopeOf(z.object({ deleted: z.literal(true), id: z.string() }));
export const AuthorizeEnvelope = envelopeOf(AuthorizeResult);
export const TokenEnvelope = envelopeOf(OAuthTokenRecord);
export const TokenList = pagedEnvelopeOf(OAuthTokenRecord);
export const RevokedTokenEnvelope = envelopeOf(
  OAuthTokenRecord.extend({
    providerRevoked: z.boolean().meta({ description: 'The provider revocation URL was called' }),
  }),
);
