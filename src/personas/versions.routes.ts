import type { ConsoleAuth } from '../accounts';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { PersonaEnvelope, PersonaIdParams } from './personas.schemas';
import { PersonaVersionDiff, PersonaVersionList, RollbackBody, VersionDiffQuery } from './versions.schemas';
import { diffPersonaVersions, listPersonaVersions, revisePersona, rollbackPersona } from './versions.service';

/** The console's persona version routes (docs/personas.md "Versions"). */
export function mountPersonaVersionRoutes(console: ApiRoot<ConsoleAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  console
    .route({
      method: 'get',
      path: '/personas/:id/versions',
      summary: "A persona's approved versions",
      description:
        'Every approval freezes the approved manifest as the next version (1, 2, …) and makes it live. Newest first; `live` marks the one `pk_live_` keys run.',
      params: PersonaIdParams,
      success: { description: 'Versions, newest first', schema: PersonaVersionList },
      handler: ({ auth, params }) => listPersonaVersions(em(), auth.account.id, params.id),
    })
    .route({
      method: 'get',
      path: '/personas/:id/versions/diff',
      summary: 'The difference between two versions',
      description:
        "An RFC 6902 JSON Patch turning version `from`'s manifest into version `to`'s (any two, either order). An unknown version → 404.",
      params: PersonaIdParams,
      query: VersionDiffQuery,
      success: { description: 'The patch', schema: PersonaVersionDiff },
      handler: ({ auth, params, query }) => diffPersonaVersions(em(), auth.account.id, params.id, query),
    })
    .route({
      method: 'post',
      path: '/personas/:id/revise',
      summary: 'Open a revision of a published persona',
      description:
        'The working copy becomes a `draft` (edit it with PUT, then submit it) while the live version keeps serving `pk_live_` sessions; approving the revision makes it the next live version. A live persona whose revision is open already answers as it is; one under review or not live → 409 `CONFLICT`.',
      params: PersonaIdParams,
      success: { description: 'The persona, its working copy a draft', schema: PersonaEnvelope },
      handler: async ({ auth, params }) => ({
        persona: await revisePersona(em(), auth.account.id, params.id),
      }),
    })
    .route({
      method: 'post',
      path: '/personas/:id/rollback',
      summary: 'Make an approved version live',
      description:
        'At once for new `pk_live_` sessions (sessions already started keep their version); emits `persona.rolled_back`. The working copy is not changed. No such version → 404; a persona that is not live (unpublished) → 409; the live version → no change.',
      params: PersonaIdParams,
      body: RollbackBody,
      success: { description: 'The persona with its new live version', schema: PersonaEnvelope },
      handler: async ({ auth, params, body }) => ({
        persona: await rollbackPersona(em(), auth.account.id, params.id, body.version),
      }),
    });
}
