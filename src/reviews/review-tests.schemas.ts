import { z } from 'zod';
import { timestamp } from '../http/envelope';

/** A persona review's test results, as the operators' list and the persona's view show them. */
export const ReviewTestsSchema = z
  .object({
    runId: z
      .string()
      .nullable()
      .meta({ description: 'The `testrun_…` run (GET /test-runs/:id); null when there was nothing to run' }),
    status: z.enum(['none', 'running', 'passed', 'failed', 'cancelled']).meta({
      description:
        '`none`: the persona has no test scenarios; `running` until the run ends; `failed` or `cancelled` count as failing',
    }),
    passed: z.number().int(),
    failed: z.number().int(),
    total: z.number().int(),
    failures: z
      .array(
        z.object({
          scenarioId: z.string(),
          name: z.string(),
          status: z.enum(['failed', 'error']),
          reasons: z.array(z.string()).meta({
            description:
              "The failing expectations' reasons (`turn 1, replyContains: …`), or the scenario's error",
          }),
        }),
      )
      .meta({ description: 'The scenarios that did not pass' }),
    completedAt: timestamp().nullable(),
  })
  .meta({
    id: 'ReviewTests',
    description:
      "The persona's test suite, run on the submitted draft by the review workflow before the operator decides",
  });
