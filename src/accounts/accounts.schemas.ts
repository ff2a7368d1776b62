import { z } from 'zod';
import { PLANS } from '../config/env';

export const MeSchema = z
  .object({
    publisherId: z.string().meta({ example: 'pub_4fJ9kQ2mX7vR1tY8wZ3nB6cD' }),
    email: z.string().nullable(),
    plan: z.enum(PLANS),
  })
  .meta({ id: 'Me' });
