import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { z } from 'zod';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../../http/envelope';
import { TelnyxCredentials, TwilioCredentials } from './carrier-credentials';
import { CARRIERS } from './phone-number.entity';

const E164 = /^\+[1-9][0-9]{1,14}$/;

/**
 * A number in E.164 form that libphonenumber-js (full metadata: each country's number plans, not
 * only their lengths) takes for a valid number, written exactly as it formats it: `+442079460000`,
 * not `+4402079460000` or `+44 20 7946 0000`.
 */
export const e164Number = z
  .string()
  .superRefine((value, issue) => {
    if (!E164.test(value)) {
      issue.addIssue({
        code: 'custom',
        message:
          'must be an E.164 number: + and the country code, then the number, digits only (+14155552671)',
      });
      return;
    }
    const parsed = parsePhoneNumberFromString(value);
    if (!parsed?.isValid()) {
      issue.addIssue({ code: 'custom', message: 'is not a valid phone number of any country' });
    } else if (parsed.number !== value) {
      issue.addIssue({ code: 'custom', message: `is not in E.164 form; did you mean ${parsed.number}?` });
    }
  })
  .meta({ description: 'The number, in E.164 form', example: '+14155552671' });

const personaId = z
  .string()
  .regex(/^persona_[A-Za-z0-9]{1,56}$/, 'must be a persona id (persona_…)')
  .meta({
    description:
      'The persona that answers and places its calls: a live one (approved) for a number made with a `pk_live_` key; any persona of the account with a `pk_test_` key',
  });

const name = z.string().trim().min(1).max(100).meta({ example: 'Support line' });

const common = { number: e164Number, personaId, name: name.optional() };

export const CreatePhoneNumberBody = z
  .discriminatedUnion('provider', [
    z.strictObject({ ...common, provider: z.literal('twilio'), credentials: TwilioCredentials }),
    z.strictObject({ ...common, provider: z.literal('telnyx'), credentials: TelnyxCredentials }),
  ])
  .meta({ id: 'CreatePhoneNumberRequest' });
export type CreatePhoneNumberInput = z.infer<typeof CreatePhoneNumberBody>;

export const UpdatePhoneNumberBody = z
  .strictObject({
    name: name.nullable().optional().meta({ description: 'null removes the name' }),
    personaId: personaId.optional(),
    credentials: z.record(z.string(), z.unknown()).optional().meta({
      description:
        "The carrier account's new credentials, in the shape of the number's provider (TwilioCredentials or TelnyxCredentials); omitted, the stored ones stay",
      writeOnly: true,
    }),
  })
  .refine((b) => Object.keys(b).length > 0, {
    message: 'at least one field to change is required',
    path: ['body'],
  })
  .meta({ id: 'UpdatePhoneNumberRequest' });
export type UpdatePhoneNumberInput = z.infer<typeof UpdatePhoneNumberBody>;

export const ListPhoneNumbersQuery = z.strictObject({
  provider: z.enum(CARRIERS).optional(),
  personaId: z.string().max(64).optional(),
  ...paginationQuery,
});
export type ListPhoneNumbersInput = z.infer<typeof ListPhoneNumbersQuery>;

export const PhoneNumberIdParams = z.object({ id: z.string().max(64) });

export const PhoneNumberRecord = z
  .object({
    id: z.string().meta({ example: 'pn_3kTq…' }),
    number: z.string().meta({ example: '+14155552671' }),
    provider: z.enum(CARRIERS),
    personaId: z.string().nullable().meta({
      description: 'null once its persona was deleted: the number answers no call until a PUT names one',
    }),
    name: z.string().nullable(),
    inboundUrl: z.string().meta({
      description:
        "Paste into the carrier's console as the number's voice webhook (Twilio: 'A call comes in'; Telnyx: the connection's webhook URL)",
      example: 'https://voice.example.com/api/v2/telephony/twilio/voice/pn_3kTq…',
    }),
    statusCallbackUrl: z.string().meta({ description: "Where the carrier posts the call's status changes" }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'PhoneNumber', description: 'A phone number; the carrier credentials are never returned' });

export const PhoneNumberEnvelope = envelopeOf(PhoneNumberRecord);
export const PhoneNumberList = pagedEnvelopeOf(PhoneNumberRecord);
export const DeletedPhoneNumber = envelopeOf(z.object({ deleted: z.literal(true), id: z.string() }));
