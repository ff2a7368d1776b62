import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties, timestampProperties } from '../db/entity-properties';

/** Declared once: the TS type and the zod enums (tools.schemas.ts) derive from it. */
export const TOOL_TYPES = ['webhook', 'mcp', 'prompt'] as const;
export type ToolType = (typeof TOOL_TYPES)[number];

/** A custom tool (`tool_…`): its type-specific `config` and the `parameters` its arguments must match. */
export class Tool {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt' | 'description';
  id: string = newId('tool');
  account!: string;
  environment!: Environment;
  name!: string;
  description?: string | null;
  type!: ToolType;
  config!: Record<string, unknown>;
  parameters!: Record<string, unknown>;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const ToolSchema = new EntitySchema<Tool>({
  class: Tool,
  tableName: 'tools',
  properties: {
    ...ownedResourceProperties(),
    name: { type: 'string', length: 100 },
    description: { type: 'text', nullable: true },
    type: { type: 'string', length: 16 },
    config: { type: 'json' },
    parameters: { type: 'json' },
    ...timestampProperties(),
  },
});
