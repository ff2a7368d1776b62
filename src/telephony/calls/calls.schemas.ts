import { z } from 'zod';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../../http/envelope';
import { e164Number } from '../phone-numbers/phone-numbers.schemas';
import { CALL_DIRECTIONS, CALL_STATUSES } from './call-statuses';

/** The longest call the API places: four hours. */
export const MAX_CALL_DURATION_S = 14_400;
/** A call's `maxDurationS` when neither the request nor the persona sets one. */
export const DEFAULT_MAX_DURATION_S = 600;

const variableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a {{name}} placeholder name');

export const PlaceCallBody = z
  .strictObject({
    phoneNumberId: z.string().regex(/^pn_[A-Za-z0-9]{1,56}$/, 'must be a phone number id (pn_…)'),
    to: e164Number.meta({ description: 'Who to call, in E.164 form', example: '+14155552671' }),
    personaId: z
      .string()
      .regex(/^persona_[A-Za-z0-9]{1,56}$/, 'must be a persona id (persona_…)')
      .optional()
      .meta({ description: "The persona that speaks; default: the number's" }),
    variables: z
      .record(variableName, z.string().max(1000))
      .refine((v) => Object.keys(v).length <= 50, 'at most 50 variables')
      .optional()
      .meta({ description: "Fill `{{name}}` placeholders in the persona's instructions and greeting" }),
    maxDurationS: z
      .number()
      .int()
      .min(10)
      .max(MAX_CALL_DURATION_S)
      .optional()
      .meta({
        description: `Hang up this many seconds after the answer (default ${DEFAULT_MAX_DURATION_S})`,
      }),
  })
  .meta({ id: 'PlaceCallRequest' });
export type PlaceCallInput = z.infer<typeof PlaceCallBody>;

export const ListCallsQuery = z.strictObject({
  status: z.enum(CALL_STATUSES).optional(),
  direction: z.enum(CALL_DIRECTIONS).optional(),
  phoneNumberId: z.string().max(64).optional(),
  ...paginationQuery,
});
export type ListCallsInput = z.infer<typeof ListCallsQuery>;

export const CallIdParams = z.object({ id: z.string().max(64) });

export const CallRecord = z
  .object({
    id: z.string().meta({ example: 'call_8fQm…' }),
    status: z.enum(CALL_STATUSES),
    direction: z.enum(CALL_DIRECTIONS),
    from: z.string().meta({ example: '+14155552671' }),
    to: z.string().meta({ example: '+14155550123' }),
    phoneNumberId: z.string(),
    personaId: z.string(),
    sessionId: z
      .string()
      .nullable()
      .meta({ description: "The call's session, once its media stream started" }),
    timeline: z
      .array(z.object({ status: z.enum(CALL_STATUSES), at: timestamp() }))
      .meta({ description: 'Each status the call reached, in order' }),
    durationS: z.number().int().nullable().meta({ description: "The carrier's call duration, once ended" }),
    maxDurationS: z.number().int().meta({
      description:
        "The call hangs up this long after the answer: the request's, else the persona's `telephony.maxDurationS`, else 600",
    }),
    endedReason: z.string().nullable().meta({
      description:
        "completed, busy, no_answer, canceled, hangup, max_duration, idle_timeout, session_ended, agent_ended, voicemail, transferred, carrier_unreachable, failed, or carrier_refused: and the carrier's message",
    }),
    carrierCallId: z
      .string()
      .nullable()
      .meta({ description: "The carrier's id of the call (Twilio's CallSid)" }),
    recordingUrl: z.string().nullable().meta({
      description:
        "The call's two-channel recording (GET it: WAV, the caller left, the agent right), once it began; null without one",
      example: '/api/v2/developers/calls/call_8fQm…/recording',
    }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Call', description: 'A phone call, inbound or outbound' });

export const CallEnvelope = envelopeOf(CallRecord);
export const CallRecording = z.string().meta({ description: 'The recording: `audio/wav`', format: 'binary' });
export const CallList = pagedEnvelopeOf(CallRecord);
