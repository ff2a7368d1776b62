import type { PlatformAuth } from '../../auth/platform-auth';
import type { AppContext } from '../../common/context';
import { endSession, startSession } from '../../sessions';
import type { CallSessionDriver } from './call-types';

/** The sessions area's own start and end, for a call's workflow (docs/telephony.md "Calls"). */
export function callSessionDriver(ctx: AppContext): CallSessionDriver {
  return {
    async start(input) {
      // startSession reads the owner of the key only; a call acts for its number's owner
      const owner = { accountId: input.accountId, environment: input.environment } as PlatformAuth;
      const session = await startSession(ctx, ctx.orm.em.fork(), owner, {
        personaId: input.personaId,
        userId: input.userId,
        metadata: input.metadata,
      });
      return session.id;
    },
    async end(input) {
      const owner = { accountId: input.accountId, environment: input.environment };
      await endSession(ctx, ctx.orm.em.fork(), owner, input.sessionId);
    },
  };
}
