import { z } from 'zod';

/** E.164 (`+14155550100`), a SIP URI (`sip:desk@pbx.example.com`) or another persona (`persona_…`: a handoff). */
const TransferTarget = z
  .string()
  .max(300)
  .regex(
    /^(\+[1-9]\d{6,14}|sips?:[^\s@]+@[^\s@]+|persona_[A-Za-z0-9]{1,60})$/,
    'must be a number in E.164 form (+14155550100), a SIP URI (sip:desk@pbx.example.com) or a persona id (persona_…)',
  );

/**
 * How the agent behaves on a phone line (docs/telephony.md, docs/api-contract.md "Persona
 * manifests"): how long its calls may last, how it collects the caller's keys, the message it leaves
 * on an answering machine and where it may transfer a call. Every field optional.
 */
export const TelephonySettingsSchema = z
  .strictObject({
    keypad: z
      .strictObject({
        terminator: z
          .enum(['#', '*'])
          .nullable()
          .meta({ description: 'The key that ends an entry (default `#`); null: only the pause does' }),
        timeoutMs: z.number().int().min(500).max(10_000).meta({
          description: 'The pause after the last key that ends an entry, 500–10 000 ms (default 2 000)',
        }),
      })
      .partial()
      .meta({
        description: 'How the caller’s keys are collected; an entry reaches the agent as `keypad: 1234`',
      }),
    maxDurationS: z.number().int().min(10).max(14_400).meta({
      description:
        'Hang up this many seconds after the answer, 10–14 400 (default 600); a call placed with its own `maxDurationS` keeps that',
    }),
    closingLine: z.string().min(1).max(500).meta({
      description:
        'What the agent says when it ends a call (`end_call`) without saying goodbye itself (default: "Thank you for calling. Goodbye.")',
    }),
    voicemailMessage: z.string().max(1000).meta({
      description: 'What the agent says after an answering machine’s beep on an outbound call, then hangs up',
    }),
    transferDestinations: z
      .array(
        z.strictObject({
          destination: TransferTarget,
          name: z.string().min(1).max(100).meta({ example: 'Billing desk' }),
          description: z
            .string()
            .max(500)
            .meta({ description: 'When to transfer there: the model reads it' }),
        }),
      )
      .max(20)
      .meta({ description: 'Where the agent may transfer a call (any other destination is refused)' }),
  })
  .partial()
  .meta({ description: 'The agent on a phone line' });
export type TelephonySettings = z.infer<typeof TelephonySettingsSchema>;
