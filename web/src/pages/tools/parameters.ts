import type { components } from '../../api/schema';

export type ToolParameters = components['schemas']['ToolParameters'];
export type ParameterType = ToolParameters['properties'][string]['type'];
export const PARAMETER_TYPES: ParameterType[] = ['string', 'number', 'integer', 'boolean', 'object', 'array'];

/** One row of the parameter-schema builder. */
export interface ParameterRow {
  name: string;
  type: ParameterType;
  description: string;
  required: boolean;
}

export const emptyParameter = (): ParameterRow => ({
  name: '',
  type: 'string',
  description: '',
  required: false,
});

/** The rows as the JSON Schema object a tool's `parameters` is (rows without a name are left out). */
export function parametersSchema(rows: readonly ParameterRow[]): ToolParameters {
  const named = rows.filter((r) => r.name.trim() !== '');
  const properties: ToolParameters['properties'] = {};
  for (const row of named) {
    properties[row.name.trim()] = {
      type: row.type,
      ...(row.description.trim() ? { description: row.description.trim() } : {}),
    };
  }
  const required = named.filter((r) => r.required).map((r) => r.name.trim());
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** Example arguments for a tool's parameters: a placeholder value of each property's type. */
export function sampleArguments(parameters: Record<string, unknown>): Record<string, unknown> {
  const properties = (parameters.properties ?? {}) as Record<string, { type?: string; enum?: string[] }>;
  const sample: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    sample[name] = property.enum?.[0] ?? placeholder(property.type);
  }
  return sample;
}

function placeholder(type: string | undefined): unknown {
  switch (type) {
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'object':
      return {};
    case 'array':
      return [];
    default:
      return '';
  }
}

/** Rows from a JSON Schema (an MCP tool's input schema): its properties of a type the builder knows. */
export function parameterRows(schema: Record<string, unknown>): ParameterRow[] {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown; description?: unknown }>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return Object.entries(properties).map(([name, property]) => ({
    name,
    type: PARAMETER_TYPES.includes(property.type as ParameterType)
      ? (property.type as ParameterType)
      : 'string',
    description: typeof property.description === 'string' ? property.description : '',
    required: required.includes(name),
  }));
}
