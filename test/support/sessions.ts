import { Session } from '../../src/sessions';
import type { Developer, TestApp } from './test-app';

/**
 * A session row of the developer's, stored directly: for tests that only need an id the platform
 * knows as theirs (a tool test or workflow execution carrying a session id), not a live session
 * with its Temporal workflow, which needs a published persona and a model.
 */
export async function storedSession(
  app: TestApp,
  owner: Developer,
  environment: 'live' | 'test' = 'live',
): Promise<string> {
  const em = app.ctx.orm.em.fork();
  const session = em.create(Session, {
    account: owner.publisherId,
    environment,
    personaId: 'per_stored',
    userId: 'caller',
    greeting: 'Hello',
    startedAt: new Date(),
  });
  await em.persist(session).flush();
  return session.id;
}
