import { z } from 'zod';
import { envelopeOf, timestamp } from '../http/envelope';
import { ANALYSIS_STATUSES } from './statuses';

export const AnalysisSessionParams = z.object({ id: z.string().min(1).max(64) });

export const SessionAnalysis = z
  .object({
    id: z.string().meta({ description: '`ana_…`, derived from the session id' }),
    sessionId: z.string(),
    personaId: z.string(),
    status: z.enum(ANALYSIS_STATUSES).meta({
      description:
        '`pending` until the model has answered; `completed`; `failed` (see `error`); `skipped` (no LLM provider configured)',
    }),
    summary: z.string().nullable().meta({ description: 'When the persona’s `analysis.summary` is true' }),
    success: z
      .object({ passed: z.boolean(), reason: z.string() })
      .nullable()
      .meta({ description: 'The call graded against `analysis.successCriteria`' }),
    data: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'The fields of `analysis.dataSchema`, valid against it' }),
    error: z.string().nullable().meta({ description: 'Why a `failed` or `skipped` analysis has no result' }),
    attempts: z
      .number()
      .int()
      .meta({ description: 'Model answers asked for: 1, or 2 after a refused first answer' }),
    createdAt: timestamp(),
    completedAt: timestamp().nullable(),
  })
  .meta({ id: 'SessionAnalysis' });

export const SessionAnalysisEnvelope = envelopeOf(SessionAnalysis);
