import {
  type CallEnd,
  connectCallSession,
  finishCall,
  recordCallStatus,
  type StatusToRecord,
} from '../src/telephony/calls/call-records';
import {
  hangUpAtCarrier,
  placeCallOnce,
  recordCallTransfer,
  transferAtCarrier,
} from '../src/telephony/calls/call-steps';
import type { ActivityDeps } from './deps';

/** A phone call's steps (workflows/phone-call.ts), each idempotent; placing a call is at most once. */
export function createCallActivities(deps: ActivityDeps) {
  return {
    /** Asks the carrier to place the call, at most once (src/telephony/calls/call-steps.ts). */
    placeCall: (input: { callId: string }) => placeCallOnce(deps, input),
    hangUpCall: (input: { callId: string }) => hangUpAtCarrier(deps, input),
    /** Puts the caller through to a destination at the carrier (run once: never retried). */
    transferCall: (input: { callId: string; destination: string; warm?: { requestId: string } }) =>
      transferAtCarrier(deps, input),
    /** `call.transferred`, once per transfer. */
    recordCallTransfer: (input: { callId: string; destination: string; requestId: string }) =>
      recordCallTransfer(deps, input),
    recordCallStatus: (input: StatusToRecord) => recordCallStatus(deps, input),
    finishCall: (input: CallEnd) => finishCall(deps, input),
    connectCallSession: (input: { callId: string }) => connectCallSession(deps, input),
  };
}
