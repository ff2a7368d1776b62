/**
 * The live voice stream's protocol (docs/voice-stream.md), message by message. Every JSON message is
 * a text frame holding one object whose `type` is one of the names below; caller audio goes in
 * binary frames. Pure: zod only, so the console and Node clients import the same schemas and types.
 */
import { z } from 'zod';
import { TurnView } from '../sessions.schemas';

/** Caller audio: PCM16 little-endian, mono, 16 kHz, at most this many bytes a binary frame. */
export const CALLER_AUDIO = { encoding: 'pcm_s16le', sampleRate: 16_000, channels: 1 } as const;
export const MAX_AUDIO_FRAME_BYTES = 64 * 1024;
/** A JSON message's largest size (a text of 2 000 characters fits many times over). */
export const MAX_TEXT_FRAME_BYTES = 16 * 1024;

// --- client → server

export const InputText = z.strictObject({
  type: z.literal('input.text'),
  text: z.string().trim().min(1).max(2000),
});
/** Keys pressed on a keypad (a phone's DTMF): collected as a call collects them, then the caller's input. */
export const InputDtmf = z.strictObject({
  type: z.literal('input.dtmf'),
  digits: z
    .string()
    .min(1)
    .max(32)
    .regex(/^[0-9*#A-D]+$/, 'must be keypad keys: 0-9, *, # and A-D'),
});
export const Interrupt = z.strictObject({ type: z.literal('interrupt') });
export const EndCall = z.strictObject({ type: z.literal('end') });
export const ClientMessage = z.discriminatedUnion('type', [InputText, InputDtmf, Interrupt, EndCall]);
export type ClientMessage = z.infer<typeof ClientMessage>;
export const CLIENT_MESSAGE_TYPES = ['input.text', 'input.dtmf', 'interrupt', 'end'] as const;

// --- server → client

/** How reply audio is encoded: raw PCM16 LE mono at `sampleRate` (Web Audio plays it gap-free). */
export const AudioFormat = z.object({
  encoding: z.literal('pcm_s16le'),
  sampleRate: z.number().int().positive(),
  channels: z.literal(1),
});
export type AudioFormat = z.infer<typeof AudioFormat>;

/** The turn a reply event belongs to; `greeting` for the greeting. */
const replyId = z.string().min(1).max(64);

export const SessionReady = z.object({
  type: z.literal('session.ready'),
  sessionId: z.string(),
  greeting: z.string(),
  /** What the server takes as caller audio (binary frames). */
  input: z.object({
    encoding: z.literal('pcm_s16le'),
    sampleRate: z.literal(16_000),
    channels: z.literal(1),
    maxFrameBytes: z.number().int(),
  }),
  /** Whether caller audio is transcribed here (a speech-to-text provider is configured). */
  speechToText: z.boolean(),
});
export const InputTranscript = z.object({
  type: z.literal('input.transcript'),
  turnId: replyId,
  text: z.string(),
});
export const ReplyDelta = z.object({ type: z.literal('reply.delta'), turnId: replyId, text: z.string() });
/**
 * Announces one speakable segment of the reply, whose audio follows in binary frames until its
 * `reply.audio.done`: `bytes` of it when the audio was whole before it was sent, null when it streams
 * from a voice provider as it is made.
 */
export const ReplyAudio = z.object({
  type: z.literal('reply.audio'),
  turnId: replyId,
  /** 0, 1, …: segments of one reply, in order. */
  segment: z.number().int().min(0),
  /** What the segment says. */
  text: z.string(),
  /** A hold phrase said while a tool runs (not part of the reply's text). */
  hold: z.boolean(),
  format: AudioFormat,
  bytes: z.number().int().min(0).nullable(),
});
/** The segment's audio is all sent: `bytes` of it, in the binary frames since its `reply.audio`. */
export const ReplyAudioDone = z.object({
  type: z.literal('reply.audio.done'),
  turnId: replyId,
  segment: z.number().int().min(0),
  bytes: z.number().int().min(0),
});
export const ToolStarted = z.object({
  type: z.literal('tool.started'),
  turnId: replyId,
  callId: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export const ToolFinished = z.object({
  type: z.literal('tool.finished'),
  turnId: replyId,
  callId: z.string(),
  name: z.string(),
  success: z.boolean(),
  durationMs: z.number(),
  error: z.string().optional(),
});
/** A voice command's progress: each node as it settles (`nodeId`), then the run (`nodeId: null`). */
export const WorkflowStep = z.object({
  type: z.literal('workflow.step'),
  turnId: replyId,
  workflowName: z.string(),
  executionId: z.string(),
  nodeId: z.string().nullable(),
  nodeType: z.string().nullable(),
  status: z.string(),
  /** What a `speak` node said (also spoken as the reply), or the whole run's speech. */
  speech: z.array(z.string()),
});
export const ReplyDone = z.object({
  type: z.literal('reply.done'),
  turnId: replyId,
  /** The whole reply (the text of every segment), or what was spoken of it when interrupted. */
  text: z.string(),
  interrupted: z.boolean(),
});
export const TurnRecorded = z.object({ type: z.literal('turn.recorded'), turnId: replyId, turn: TurnView });
export const Interrupted = z.object({
  type: z.literal('interrupted'),
  turnId: replyId,
  spokenText: z.string(),
});
export const STREAM_ERROR_CODES = [
  'INVALID_MESSAGE',
  'UNKNOWN_TYPE',
  'FRAME_TOO_LARGE',
  'INVALID_AUDIO',
  'RATE_LIMITED',
  'TURN_IN_PROGRESS',
  'STT_NOT_CONFIGURED',
  'STT_FAILED',
  'STT_TIMEOUT',
  'SESSION_BUSY',
  'SESSION_ENDED',
  'TURN_FAILED',
  'SERVICE_UNAVAILABLE',
  'INTERNAL',
] as const;
export const StreamError = z.object({
  type: z.literal('error'),
  code: z.enum(STREAM_ERROR_CODES),
  message: z.string(),
});
export const SessionEnded = z.object({
  type: z.literal('session.ended'),
  sessionId: z.string(),
  reason: z.enum(['ended', 'idle_timeout', 'disconnected']),
  turnCount: z.number().int(),
});
export const ServerMessage = z.discriminatedUnion('type', [
  SessionReady,
  InputTranscript,
  ReplyDelta,
  ReplyAudio,
  ReplyAudioDone,
  ToolStarted,
  ToolFinished,
  WorkflowStep,
  ReplyDone,
  TurnRecorded,
  Interrupted,
  StreamError,
  SessionEnded,
]);
export type ServerMessage = z.infer<typeof ServerMessage>;
export type StreamErrorCode = (typeof STREAM_ERROR_CODES)[number];
export type ServerMessageOf<T extends ServerMessage['type']> = Extract<ServerMessage, { type: T }>;
