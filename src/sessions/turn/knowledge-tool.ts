import { z } from 'zod';
import type { AppContext } from '../../common/context';
import type { Owner } from '../../common/owner';
import { retrieveChunks } from '../../knowledge';
import type { AgentTool, ChatToolCall } from '../agent-context';
import type { AgentToolOutcome } from '../turn-types';
import { referenceMessage, TURN_KNOWLEDGE_CHUNKS } from './knowledge-turn';

export const SEARCH_KNOWLEDGE = 'search_knowledge';

/** The tool a persona with knowledge bases offers: the model looks something up mid-answer. */
export const searchKnowledgeTool: AgentTool = {
  name: SEARCH_KNOWLEDGE,
  description:
    "Search the account's documents (help centre, policies, product sheets) for what you need to answer. Answers quoted passages with their source.",
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'What to look for, in a few words' } },
    required: ['query'],
    additionalProperties: false,
  },
  ref: { kind: 'knowledge' },
};

const SearchArgs = z.strictObject({ query: z.string().trim().min(1).max(500) });

/**
 * Runs `search_knowledge` at once, in the turn (a read, no side effect: nothing for the session's
 * workflow to keep): the best chunks of the persona's bases, quoted as the turn's own reference
 * material is, recorded as a tool action with the chunks it found.
 */
export async function runKnowledgeTool(
  ctx: AppContext,
  search: { owner: Owner; baseIds: string[] },
  call: ChatToolCall,
): Promise<AgentToolOutcome> {
  const started = performance.now();
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments || '{}');
  } catch {
    args = undefined;
  }
  const parsed = SearchArgs.safeParse(args);
  const recorded = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  const base = {
    type: 'tool' as const,
    tool: SEARCH_KNOWLEDGE,
    toolId: 'knowledge/search',
    arguments: recorded,
  };
  if (!parsed.success) {
    const error = `Invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}`;
    const durationMs = Math.round(performance.now() - started);
    return { action: { ...base, success: false, error, durationMs }, content: JSON.stringify({ error }) };
  }
  const knex = ctx.orm.em.getConnection().getKnex();
  const chunks = await retrieveChunks(
    knex,
    search.owner,
    search.baseIds,
    parsed.data.query,
    TURN_KNOWLEDGE_CHUNKS,
    { embeddings: ctx.config.knowledge.embeddings },
  );
  const result = chunks.map(({ sourceName, heading, ordinal, sourceId }) => ({
    sourceId,
    sourceName,
    heading,
    ordinal,
  }));
  const durationMs = Math.round(performance.now() - started);
  return {
    action: { ...base, success: true, result, durationMs },
    content: chunks.length
      ? (referenceMessage(chunks).content ?? '')
      : 'Nothing in the documents matches that.',
  };
}
