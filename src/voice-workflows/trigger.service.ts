import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContext } from '../common/context';
import type { Owner } from '../common/owner';
import { ApiError } from '../http/errors';
import { commandParametersOf } from './command-parameters';
import { matchCommand } from './matching';
import { fillParameters } from './parameter-filling';
import { executeWorkflow } from './runs.service';
import { voiceCommands } from './voice-commands';
import type { WorkflowDefinition } from './workflow.entity';
import type { TriggerWorkflowInput } from './workflows.schemas';

/** Picks the workflow whose voice command best matches the utterance, and runs it. */
export async function triggerWorkflow(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  body: TriggerWorkflowInput,
) {
  const outcome = matchCommand(body.utterance, await voiceCommands(em, owner));
  const describe = (c: { item: WorkflowDefinition; command: string; score: number }) => ({
    workflowId: c.item.id,
    name: c.item.name,
    command: c.command,
    score: c.score,
  });
  if (outcome.kind === 'none') {
    throw new ApiError(
      404,
      'NOT_FOUND',
      `No workflow's voice command matches "${body.utterance}"`,
      undefined,
      {
        candidates: outcome.candidates.map(describe),
      },
    );
  }
  if (outcome.kind === 'tie') {
    const names = outcome.tied.map((c) => `"${c.item.name}"`).join(', ');
    throw new ApiError(
      409,
      'CONFLICT',
      `The utterance matches several workflows equally well: ${names}`,
      undefined,
      {
        candidates: outcome.tied.map(describe),
      },
    );
  }
  const { best } = outcome;
  const match = { utterance: body.utterance, command: best.command, score: best.score };
  const answer = await executeWorkflow(ctx, em, owner, best.item, withParameters(body, best), match);
  return {
    running: answer.running,
    record: { ...answer.record, match: { ...match, workflowName: best.item.name } },
  };
}

/**
 * The run's input with the command's parameters that the utterance gives (by their placeholder,
 * pattern or type; no model here) as `trigger`, over any `input.trigger` sent.
 */
function withParameters(body: TriggerWorkflowInput, best: { item: WorkflowDefinition; command: string }) {
  const parameters = commandParametersOf(best.item.trigger);
  if (parameters.length === 0) return body;
  const { values } = fillParameters(best.command, parameters, body.utterance);
  const sent = body.input?.trigger;
  const given = sent && typeof sent === 'object' && !Array.isArray(sent) ? sent : {};
  return { ...body, input: { ...body.input, trigger: { ...given, ...values } } };
}
