import type { AppContext } from '../../common/context';
import { ApiError } from '../../http/errors';
import { personaForSession } from '../../personas';
import { Session } from '../session.entity';
import { greetingOf, sessionVoiceId } from '../session-stack';
import type { TransferDestination, TransferRequest } from '../turn/call-tools';
import type { Conversation } from './conversation';

/** A transfer destination that is another persona of the account (`persona_…`): a handoff. */
export const isPersonaDestination = (d: Pick<TransferDestination, 'destination'>) =>
  d.destination.startsWith('persona_');

/**
 * Hands the session to another persona of its account (docs/telephony.md "Handoffs"): the session
 * runs that persona from its next turn (its instructions and tools; the history so far is the
 * session's), as a live key's session runs its live version. One statement, with the session
 * locked; asked again, it changes nothing more.
 */
export async function handOffSession(
  ctx: AppContext,
  input: { sessionId: string; personaId: string },
): Promise<{ name: string; voiceId: string; greeting: string; backchannels: string[] }> {
  return ctx.orm.em.fork().transactional(async (em) => {
    const session = await em.findOneOrFail(
      Session,
      { id: input.sessionId },
      { lockMode: 4 /* PESSIMISTIC_WRITE */ },
    );
    if (session.status !== 'active') throw new Error('The session has ended');
    const target = await personaForSession(em, {
      accountId: session.account,
      environment: session.environment,
      personaId: input.personaId,
    });
    em.assign(session, { personaId: target.persona.id, personaVersion: target.version });
    const { manifest } = target;
    return {
      name: manifest.identity?.name || target.persona.name,
      voiceId: sessionVoiceId(manifest),
      greeting: greetingOf(manifest),
      backchannels: manifest.behaviors?.backchannels ?? [],
    };
  });
}

/**
 * A live call's transfer to a persona: the session is handed over, then, after the reply under
 * way, the new agent greets the caller in its own voice and takes the next turns.
 */
export async function transferToPersona(
  ctx: AppContext,
  conversation: Conversation,
  sessionId: string,
  request: TransferRequest,
): Promise<{ ok: true; message: string } | { ok: false; error: string }> {
  try {
    const agent = await handOffSession(ctx, { sessionId, personaId: request.destination.destination });
    conversation.handOff(agent);
    return { ok: true, message: `The caller is now with ${agent.name}, who takes over from here.` };
  } catch (error) {
    const reason = error instanceof ApiError || error instanceof Error ? error.message : String(error);
    ctx.logger.info({ sessionId, err: error }, 'a handoff was refused');
    return { ok: false, error: `The handoff to ${request.destination.name} failed: ${reason}` };
  }
}
