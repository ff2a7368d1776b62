import { validatePersonaManifest } from '../../personas';
import {
  type AgentManifest,
  DEFAULT_QUOTAS,
  EXECUTABLE_RUNTIMES,
  type ItemManifest,
  isExecutable,
  type ManifestContext,
  type ToolManifest,
} from './manifest';
import type { ItemType } from './statuses';

/** Notes that never block a submission, shown to the publisher and the operator with the review. */
export function manifestWarnings(type: ItemType, manifest: ItemManifest, ctx: ManifestContext): string[] {
  const notes: string[] = [];
  if (!manifest.pricing) notes.push('pricing: none given; the item is free');
  if (!manifest.quotas) {
    notes.push(
      `quotas: none given; the defaults apply (free ${DEFAULT_QUOTAS.free}, pro ${DEFAULT_QUOTAS.pro}, enterprise ${DEFAULT_QUOTAS.enterprise} executions per user and month)`,
    );
  }
  if (type === 'tool') {
    const tool = manifest as ToolManifest;
    if (!isExecutable(tool)) {
      notes.push(
        `execution.runtime.type: "${tool.execution.runtime.type}" is listed but not executable here (only ${EXECUTABLE_RUNTIMES.join(' and ')})`,
      );
    }
    if (!tool.interface.inputSchema) {
      notes.push('interface.inputSchema: none given; arguments are not checked before a run');
    }
  } else {
    const agent = manifest as AgentManifest;
    const persona = validatePersonaManifest(agent.persona, {
      slugTaken: () => false,
      findVoice: ctx.findVoice,
    });
    notes.push(...persona.warnings.map((w) => `persona.${w}`));
  }
  return notes;
}
