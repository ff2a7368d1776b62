import type { EntityManager } from '@mikro-orm/postgresql';
import type { Owner } from '../common/owner';
import { WorkflowDefinition } from './workflow.entity';

/** The owner's `voice_command` workflows with their commands, oldest first (what utterances match against). */
export async function voiceCommands(em: EntityManager, owner: Owner) {
  const workflows = await em.find(
    WorkflowDefinition,
    { account: owner.accountId, environment: owner.environment },
    { orderBy: { createdAt: 'asc' } },
  );
  return workflows
    .filter((w) => w.trigger.type === 'voice_command' && w.trigger.config.command)
    .map((w) => ({ item: w, command: w.trigger.config.command as string }));
}
