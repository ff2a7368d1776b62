import type { EntityManager } from '@mikro-orm/postgresql';
import type { Owner } from '../common/owner';
import { WorkflowDefinition } from './workflow.entity';

/** What matching a command and running its graph need of a workflow. */
export type VoiceCommandWorkflow = Pick<
  WorkflowDefinition,
  'id' | 'name' | 'version' | 'trigger' | 'nodes' | 'edges'
>;

/** The owner's `voice_command` workflows with their commands, oldest first (what utterances match against). */
export async function voiceCommands(em: EntityManager, owner: Owner) {
  const workflows = await em.find(
    WorkflowDefinition,
    { account: owner.accountId, environment: owner.environment },
    { orderBy: { createdAt: 'asc' } },
  );
  return voiceCommandsOf(workflows);
}

/** The workflows (oldest first) that a command triggers, with their commands. */
export function voiceCommandsOf<W extends VoiceCommandWorkflow>(workflows: W[]) {
  return workflows
    .filter((w) => w.trigger.type === 'voice_command' && w.trigger.config.command)
    .map((w) => ({ item: w, command: w.trigger.config.command as string }));
}

/**
 * The owner's `voice_command` workflows as one JSON array of VoiceCommandWorkflow, oldest first: a
 * subquery for a statement that reads them with other rows (`account` and `environment` are SQL
 * expressions of the outer query). Give the result to voiceCommandsOf.
 */
export const voiceCommandWorkflowsJson = (account: string, environment: string) =>
  `(select coalesce(json_agg(json_build_object('id', w.id, 'name', w.name, 'version', w.version,
       'trigger', w.trigger, 'nodes', w.nodes, 'edges', w.edges) order by w.created_at, w.id), '[]'::json)
     from workflows w
    where w.account_id = ${account} and w.environment = ${environment} and w.trigger->>'type' = 'voice_command')`;
