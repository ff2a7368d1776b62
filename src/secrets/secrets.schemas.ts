import { z } from 'zod';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../http/envelope';

export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export const SecretNameParams = z.object({
  name: z
    .string()
    .regex(SECRET_NAME, 'must be 1-64 letters, digits or underscores, not starting with a digit')
    .meta({ description: 'Secret name, used as `{{secrets.NAME}}`', example: 'CRM_API_TOKEN' }),
});

export const PutSecretBody = z
  .strictObject({
    value: z
      .string()
      .min(1)
      .max(65_536)
      .meta({ description: 'The secret value; stored encrypted, never returned', writeOnly: true }),
  })
  .meta({ id: 'PutSecretRequest' });

export const ListSecretsQuery = z.strictObject({ ...paginationQuery });

export const SecretRecord = z
  .object({ name: z.string(), createdAt: timestamp(), updatedAt: timestamp() })
  .meta({ id: 'Secret', description: 'A secret: its name and timestamps only; the value is never returned' });

export const SecretEnvelope = envelopeOf(SecretRecord);
export const SecretList = pagedEnvelopeOf(SecretRecord);
export const DeletedSecret = envelopeOf(z.object({ deleted: z.literal(true), name: z.string() }));
