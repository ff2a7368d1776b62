import { z } from 'zod';

export const GETTING_STARTED_STEPS = ['key', 'persona', 'voice', 'talk', 'tool', 'webhook'] as const;
export type GettingStartedStep = (typeof GETTING_STARTED_STEPS)[number];

export const GettingStartedResponse = z
  .object({
    steps: z.array(
      z.object({
        id: z.enum(GETTING_STARTED_STEPS),
        title: z.string(),
        done: z.boolean(),
      }),
    ),
    done: z.number().int().meta({ description: 'How many steps are done' }),
    total: z.number().int(),
    demoMcpUrl: z.string().nullable().meta({
      description:
        'The demo shop’s MCP server that `npm start` serves (lookup_order, store_hours), for a first tool; null where none runs',
    }),
  })
  .meta({ id: 'GettingStarted' });
export type GettingStartedShape = z.infer<typeof GettingStartedResponse>;
