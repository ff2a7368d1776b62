import type { Scope } from './paths';
import { renderText } from './templates';

/**
 * The call nodes (docs/telephony.md "Call nodes in voice workflows"): `end_call`, `transfer_call`
 * and `press_digits` act on the call, which only the call's transport can do (as the model's call
 * tools do). The interpreter computes what they ask, with no side effect and no activity: the step's
 * result is the requested action, which the voice command's turn then performs on the call. On no
 * call (a triggered execution, a REST turn, the live stream for what it cannot do) the step fails.
 * Workflow-safe: pure functions, no Node.js APIs (this module runs inside the Temporal sandbox).
 */
export const CALL_NODE_TYPES = ['end_call', 'transfer_call', 'press_digits'] as const;
export type CallNodeType = (typeof CALL_NODE_TYPES)[number];

export const isCallNodeType = (type: string): type is CallNodeType =>
  (CALL_NODE_TYPES as readonly string[]).includes(type);

/** What a call node's step asks of the call (its result). */
export type CallRequest =
  | { call: 'end_call'; closingLine?: string }
  | { call: 'transfer_call'; destination: string; mode: 'cold' | 'warm'; summary?: string }
  | { call: 'press_digits'; digits: string };

/** Keys a call can press: as the `press_digits` call tool takes them. */
export const DIGITS_PATTERN = /^[0-9*#A-D]{1,32}$/;
export const DIGITS_RULE = 'must be 1 to 32 keys among 0-9, *, # and A-D';

/** Where a call may go, by shape (the persona, known only at run time, lists the allowed ones). */
export const TRANSFER_DESTINATION_PATTERN =
  /^(\+[1-9]\d{6,14}|sips?:[^\s@]+@[^\s@]+|persona_[A-Za-z0-9]{1,60})$/;
export const TRANSFER_DESTINATION_RULE =
  'must be a number in E.164 form (+14155550100), a SIP URI (sip:desk@pbx.example.com) or a persona id (persona_…)';

/**
 * What a run's plan adds when it runs on a call: the call actions that call can take (a voice
 * command's turn knows them from its transport). Absent in a triggered execution: it is on no call.
 */
export interface RunOnCall {
  callActions?: CallNodeType[];
}

/** Why a call node cannot run where it is. */
export const callUnavailable = (type: CallNodeType) =>
  type === 'transfer_call'
    ? 'transfer_call runs only on a call that can be transferred (a phone call, or the live stream to a persona)'
    : `${type} runs only on a phone call`;

/**
 * The action a call node asks for, its templates rendered. Throws (failing the node) when the call
 * the run is on cannot take it (`available`; undefined: a dry run, which asks everything and does
 * nothing), or when the rendered keys are not keys.
 */
export function requestCall(
  node: { id: string; type: CallNodeType; config?: Record<string, unknown> },
  scope: Scope,
  available: readonly CallNodeType[] | undefined,
): CallRequest {
  if (available && !available.includes(node.type)) throw new Error(callUnavailable(node.type));
  const config = node.config ?? {};
  const rendered = (value: unknown) => (typeof value === 'string' ? renderText(value, scope).trim() : '');
  switch (node.type) {
    case 'end_call': {
      const closingLine = rendered(config.closingLine);
      return { call: 'end_call', ...(closingLine ? { closingLine } : {}) };
    }
    case 'press_digits': {
      const digits = rendered(config.digits);
      if (!DIGITS_PATTERN.test(digits)) throw new Error(`digits "${digits.slice(0, 40)}" ${DIGITS_RULE}`);
      return { call: 'press_digits', digits };
    }
    case 'transfer_call': {
      const summary = rendered(config.summary);
      const mode = config.mode === 'warm' ? 'warm' : 'cold';
      return {
        call: 'transfer_call',
        destination: String(config.destination),
        mode,
        ...(summary ? { summary } : {}),
      };
    }
  }
}
