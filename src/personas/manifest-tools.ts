import { z } from 'zod';

/**
 * The tools a persona's agent is offered (docs/personas.md "Tools"): each names one of the account's
 * custom tools, one of its MCP servers (all of that server's tools, or those of an allow-list), or a
 * marketplace tool the account installed. An agent is offered exactly these, in this order; a
 * persona that names none is offered none. The ids are checked at save (each the account's, no two
 * tools offered under one name) by a check the composition root wires (`ReferenceChecks.personaTools`).
 */
const id = (description: string, example: string) => z.string().min(1).max(64).meta({ description, example });

export const PersonaToolRefSchema = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('tool'),
      id: id('A custom tool of GET /tools', 'tool_8c1TfQ2mX7vR1tY8wZ3nB6cD'),
    }),
    z.strictObject({
      type: z.literal('mcp_server'),
      id: id('An MCP server of GET /mcp-servers', 'mcp_5RbXo0sLk2Vh9Qe1Wd7yPz3A'),
      tools: z
        .array(z.string().min(1).max(128))
        .max(100)
        .meta({ description: 'Only these of its tools, by their MCP names (absent: all of them)' })
        .optional(),
    }),
    z.strictObject({
      type: z.literal('marketplace'),
      id: id('A marketplace tool your account installed (its item id)', 'tool_weather_lookup'),
    }),
  ])
  .meta({
    id: 'PersonaToolRef',
    description: 'One tool, MCP server or installed marketplace tool the agent is offered',
  });
export type PersonaToolRef = z.infer<typeof PersonaToolRefSchema>;

export const PersonaToolsSchema = z.array(PersonaToolRefSchema).max(500).meta({
  description:
    'The tools the agent is offered, in this order (none named: none). Each must be your account’s; two that would reach the model under one name are refused.',
});
