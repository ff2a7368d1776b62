import { z } from 'zod';
import { PLANS } from '../config/env';

export const MeSchema = z
  .object({
    publisherId: z.string().meta({ example: 'pub_4fJ9kQ2mX7vR1tY8wZ3nB6cD' }),
    email: z.string().nullable(),
    plan: z.enum(PLANS),
    reviewer: z.boolean().meta({
      description:
        'An operator marked this console user as a reviewer: the review endpoints of the operator API take their ID token (docs/console.md "The review queue")',
    }),
  })
  .meta({ id: 'Me' });

const requirePassingTests = z.boolean().meta({
  description:
    "A persona submission whose test suite fails (or is cancelled, or errors) is rejected at once, the failures as the review's notes; off (the default), the operator sees the results and decides",
});

export const AccountSettings = z.object({ requirePassingTests }).meta({ id: 'AccountSettings' });
export type AccountSettingsView = z.input<typeof AccountSettings>;

export const SettingsBody = z
  .strictObject({ requirePassingTests: requirePassingTests.optional() })
  .refine((b) => Object.keys(b).length > 0, {
    message: 'at least one setting to change is required',
    path: ['body'],
  })
  .meta({ id: 'UpdateAccountSettingsRequest' });
export type SettingsUpdate = z.infer<typeof SettingsBody>;
