import { z } from 'zod';
import { numberFromString, timestamp } from '../http/envelope';
import { PersonaManifestSchema } from './manifest';

/** Version numbers start at 1; the bound only keeps a number a number (no persona gets near it). */
const versionNumber = z.number().int().min(1).max(1_000_000);
const versionFromQuery = numberFromString(z.coerce.number().int().min(1).max(1_000_000));

export const RollbackBody = z
  .strictObject({
    version: versionNumber.meta({ description: 'An approved version (GET /personas/:id/versions)' }),
  })
  .meta({ id: 'PersonaRollbackRequest' });

export const VersionDiffQuery = z.strictObject({
  from: versionFromQuery.meta({ description: 'The version the patch starts from' }),
  to: versionFromQuery.meta({ description: 'The version the patch leads to' }),
});

export const PersonaVersionRecord = z
  .object({
    version: z
      .number()
      .int()
      .meta({ description: '1 for the first approval, +1 for each approval after it' }),
    live: z.boolean().meta({ description: 'Whether `pk_live_` keys start sessions on it now' }),
    manifest: PersonaManifestSchema,
    approvedAt: timestamp(),
    reviewId: z
      .string()
      .nullable()
      .meta({ description: 'The review that approved it (`review-<persona id>-<n>`)' }),
  })
  .meta({ id: 'PersonaVersion' });

export const PersonaVersionList = z.object({
  liveVersion: z.number().int().nullable(),
  versions: z.array(PersonaVersionRecord),
});

const PatchOperation = z
  .object({
    op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
    path: z.string(),
    value: z.unknown().optional(),
    from: z.string().optional(),
  })
  .meta({ id: 'JsonPatchOperation' });

export const PersonaVersionDiff = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    patch: z.array(PatchOperation).meta({
      description: "RFC 6902 operations that turn `from`'s manifest into `to`'s (empty when equal)",
    }),
  })
  .meta({ id: 'PersonaVersionDiff' });
export type JsonPatch = z.infer<typeof PersonaVersionDiff>['patch'];
