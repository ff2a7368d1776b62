import { z } from 'zod';
import {
  CALL_NODE_TYPES,
  DIGITS_PATTERN,
  DIGITS_RULE,
  TRANSFER_DESTINATION_PATTERN,
  TRANSFER_DESTINATION_RULE,
} from './call-nodes';
import { stringsIn } from './templates';

export const NODE_TYPES = [
  'start',
  'end',
  'mcp_call',
  'speak',
  'condition',
  'llm_prompt',
  ...CALL_NODE_TYPES,
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

const none = z.strictObject({}).optional();

/** A template's placeholders are checked with the graph; a text without one must be keys already. */
const KeysOrTemplate = z
  .string()
  .min(1)
  .max(200)
  .refine((text) => text.includes('{{') || DIGITS_PATTERN.test(text), {
    message: `${DIGITS_RULE} (or a template such as {{trigger.digits}})`,
  });

/**
 * Each node type's `config` (docs/api-contract.md "Voice workflow graphs"), plus optional per-node
 * timeouts. Unknown fields are refused, named.
 */
export const NODE_CONFIG_SCHEMAS: Record<NodeType, z.ZodType> = {
  start: none,
  end: none,
  mcp_call: z.strictObject({
    serverId: z.string().min(1).max(64),
    toolName: z.string().min(1).max(200),
    arguments: z.record(z.string(), z.unknown()).optional(),
    timeoutMs: z.number().int().min(100).max(60_000).optional(),
  }),
  speak: z.strictObject({ text: z.string().min(1).max(5000) }),
  condition: z.strictObject({ expression: z.string().min(1).max(2000) }),
  llm_prompt: z.strictObject({
    prompt: z.string().min(1).max(20_000),
    model: z.string().max(100).optional(),
    maxTokens: z.number().int().min(1).max(8192).optional(),
    timeoutMs: z.number().int().min(100).max(60_000).optional(),
  }),
  end_call: z.strictObject({ closingLine: z.string().min(1).max(500).optional() }).optional(),
  // the destination's shape only: the persona that lists the allowed ones is known when the call runs
  transfer_call: z.strictObject({
    destination: z.string().max(300).regex(TRANSFER_DESTINATION_PATTERN, TRANSFER_DESTINATION_RULE),
    mode: z.enum(['cold', 'warm']).optional(),
    summary: z.string().min(1).max(1000).optional(),
  }),
  press_digits: z.strictObject({ digits: KeysOrTemplate }),
};

/** The config field of each node type that holds templates (every string inside it is one). */
const TEMPLATED_FIELD: Partial<Record<NodeType, string>> = {
  speak: 'text',
  llm_prompt: 'prompt',
  mcp_call: 'arguments',
  end_call: 'closingLine',
  transfer_call: 'summary',
  press_digits: 'digits',
};

/** Where a node keeps its templated texts (`speak.text`, `mcp_call.arguments`, `press_digits.digits`…). */
export function templatedFields(node: {
  type: string;
  config?: Record<string, unknown>;
}): { field: string; texts: string[] }[] {
  const field = TEMPLATED_FIELD[node.type as NodeType];
  return field ? [{ field, texts: stringsIn(node.config?.[field]) }] : [];
}
