import { z } from 'zod';
import type { AgentTool, ChatToolCall } from '../agent-context';
import type { TurnAction } from '../session.entity';
import type { AgentToolOutcome } from '../turn-types';

/**
 * The built-in call tools (docs/telephony.md "Call tools"): what a human agent does on a phone
 * line, offered to the model on phone calls beside the persona's own tools. They act on the call
 * itself, so the call's transport runs them (its `CallControls`), not the session's workflow; each
 * is recorded as a tool action of the turn like any other.
 */
export const CALL_TOOL_NAMES = ['end_call', 'transfer_call', 'press_digits'] as const;
export type CallToolName = (typeof CALL_TOOL_NAMES)[number];

/** Where the persona lets the agent transfer a call (its `telephony.transferDestinations`). */
export interface TransferDestination {
  destination: string;
  name: string;
  description: string;
}

/** A transfer the model asked for, to a listed destination. */
export interface TransferRequest {
  destination: TransferDestination;
  mode: 'cold' | 'warm';
  summary?: string;
  /** The tool call's id within its turn: the transfer is asked at most once for it. */
  requestId: string;
}

/**
 * What a call lets the agent do to it: a phone line all of it, the live stream a handoff to another
 * persona. A tool whose control is absent is not offered.
 */
export interface CallControls {
  /** Ends the call once this turn's reply has played (the closing line when the reply said nothing). */
  endCall?(): void;
  /** `digits` as in-band DTMF tones, at the sample rate the call plays best. */
  digitTones?(digits: string): { pcm: Int16Array; sampleRate: number };
  /** Where the call may be transferred; none: `transfer_call` is not offered. */
  destinations: TransferDestination[];
  /** Transfers the call; answers what the model is told. */
  transfer?(request: TransferRequest): Promise<{ ok: true; message: string } | { ok: false; error: string }>;
}

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false };

const PressDigitsArgs = z.strictObject({
  digits: z.string().regex(/^[0-9*#A-D]{1,32}$/, 'must be 1 to 32 keys among 0-9, *, # and A-D'),
});

const TransferArgs = z.strictObject({
  destination: z.string().min(1).max(300),
  mode: z.enum(['cold', 'warm']).default('cold'),
  summary: z.string().max(1000).optional(),
});

/** The call tools a call with `controls` offers the model. */
export function callTools(controls: CallControls | undefined): AgentTool[] {
  if (!controls) return [];
  const tool = (name: CallToolName, description: string, parameters: Record<string, unknown>) => ({
    name,
    description,
    parameters,
    ref: { kind: 'call' as const, control: name },
  });
  const tools: AgentTool[] = [];
  if (controls.endCall)
    tools.push(
      tool(
        'end_call',
        'Hang up the call. Say your goodbye in the same reply: it is played to the caller before the line is closed.',
        NO_ARGUMENTS,
      ),
    );
  if (controls.digitTones)
    tools.push(
      tool('press_digits', 'Press keys on the phone keypad (DTMF tones), to work a phone menu.', {
        type: 'object',
        properties: { digits: { type: 'string', description: 'The keys, e.g. "1" or "4521#"' } },
        required: ['digits'],
        additionalProperties: false,
      }),
    );
  if (controls.transfer && controls.destinations.length) tools.push(transferTool(controls));
  return tools;
}

function transferTool(controls: CallControls): AgentTool {
  const listed = controls.destinations.map((d) => `${d.destination} (${d.name}): ${d.description}`);
  return {
    name: 'transfer_call',
    description: `Transfer the caller to one of these destinations, and only these:\n${listed.join('\n')}\nCold: the caller is put through at once. Warm: the person answering first hears your summary of the call; if nobody answers, the caller comes back to you.`,
    parameters: {
      type: 'object',
      properties: {
        destination: { type: 'string', enum: controls.destinations.map((d) => d.destination) },
        mode: { type: 'string', enum: ['cold', 'warm'] },
        summary: {
          type: 'string',
          description: 'For a warm transfer: what the person answering should know',
        },
      },
      required: ['destination'],
      additionalProperties: false,
    },
    ref: { kind: 'call', control: 'transfer_call' },
  };
}

/** What a call tool needs of its turn's listener (src/sessions/turn/turn-listener.ts). */
interface CallToolListener {
  sound?(sound: { pcm: Int16Array; sampleRate: number }): void;
  drain?(): Promise<void>;
}

/**
 * Whether a turn's action handed the call on: ended (`end_call`) or transferred (`transfer_call`).
 * The turn's rounds stop there: what the agent said is its last word on the call.
 */
export const handsCallOn = (action: TurnAction) =>
  action.type === 'tool' &&
  (action.toolId === 'call/end_call' || action.toolId === 'call/transfer_call') &&
  action.success;

/** Whether a tool the model may call is a call tool (run by the call, not the workflow). */
export const isCallTool = (tool: AgentTool | undefined) => tool?.ref.kind === 'call';

/**
 * Runs one call tool the model called, at once, on the call: its arguments checked (a refusal is
 * told to the model), its action recorded with the turn as any tool's is.
 */
export async function runCallTool(
  controls: CallControls,
  call: ChatToolCall,
  turn: { listener: CallToolListener; turnId: string },
): Promise<AgentToolOutcome> {
  const started = performance.now();
  const name = call.function.name as CallToolName;
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments || '{}');
  } catch {
    args = undefined;
  }
  const outcome = await callToolOutcome(controls, name, `${turn.turnId}:${call.id}`, args, turn.listener);
  const durationMs = Math.round(performance.now() - started);
  const recordedArgs = typeof args === 'object' && args !== null && !Array.isArray(args) ? args : {};
  return {
    action: {
      type: 'tool',
      tool: name,
      toolId: `call/${name}`,
      arguments: recordedArgs as Record<string, unknown>,
      success: outcome.ok,
      ...(outcome.ok ? { result: outcome.result } : { error: outcome.error }),
      durationMs,
    },
    content: JSON.stringify(outcome.ok ? { result: outcome.result } : { error: outcome.error }),
  };
}

type Outcome = { ok: true; result: string } | { ok: false; error: string };

async function callToolOutcome(
  controls: CallControls,
  name: CallToolName,
  requestId: string,
  args: unknown,
  listener: CallToolListener,
): Promise<Outcome> {
  if (name === 'end_call' && controls.endCall) {
    controls.endCall();
    return { ok: true, result: 'The call ends once your reply has been played.' };
  }
  if (name === 'press_digits' && controls.digitTones) {
    const parsed = PressDigitsArgs.safeParse(args);
    if (!parsed.success) return { ok: false, error: `Invalid arguments: ${issuesOf(parsed.error)}` };
    listener.sound?.(controls.digitTones(parsed.data.digits));
    return { ok: true, result: `Pressed ${parsed.data.digits}` };
  }
  if (name !== 'transfer_call') return { ok: false, error: `${name} is not available on this call` };
  const parsed = TransferArgs.safeParse(args);
  if (!parsed.success) return { ok: false, error: `Invalid arguments: ${issuesOf(parsed.error)}` };
  const destination = controls.destinations.find((d) => d.destination === parsed.data.destination);
  if (!destination || !controls.transfer)
    return {
      ok: false,
      error: `${parsed.data.destination} is not a destination this call may be transferred to`,
    };
  const { mode, summary } = parsed.data;
  // the caller hears what the agent said ("let me put you through") before anything changes
  await listener.drain?.();
  const transferred = await controls.transfer({ destination, mode, summary, requestId });
  return transferred.ok ? { ok: true, result: transferred.message } : transferred;
}

const issuesOf = (error: z.ZodError) =>
  error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
