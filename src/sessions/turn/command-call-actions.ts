import type { StepRecord } from '../../voice-workflows';
import {
  type CallNodeType,
  type CallRequest,
  callUnavailable,
  isCallNodeType,
} from '../../voice-workflows/call-nodes';
import type { ChatToolCall } from '../agent-context';
import type { TurnAction } from '../session.entity';
import { type CallControls, handsCallOn, runCallTool } from './call-tools';
import type { TurnRequest } from './turn-listener';

/** The call actions a call with `controls` can take: what a voice command's call nodes may ask of it. */
export function callActionsOf(controls: CallControls | undefined): CallNodeType[] {
  if (!controls) return [];
  const actions: CallNodeType[] = [];
  if (controls.endCall) actions.push('end_call');
  if (controls.transfer) actions.push('transfer_call');
  if (controls.digitTones) actions.push('press_digits');
  return actions;
}

/** What performing a command's call actions did. */
export interface CallActionsDone {
  /** Each action performed, as the model's call tools record theirs (`toolId: call/<name>`). */
  actions: TurnAction[];
  /** What was said for them (an `end_call`'s closing line), in order. */
  said: string[];
  /** Why an action was refused (an unlisted destination…): the actions stopped there. */
  refused?: string;
}

/** The call tool call a call node's request is: the same arguments the model would give. */
function toolCallOf(nodeId: string, request: CallRequest): ChatToolCall {
  const { call: name, ...rest } = request;
  const args = request.call === 'end_call' ? {} : rest;
  return { id: `node:${nodeId}`, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

/**
 * Performs the call actions a voice command's run asked for (its call nodes' completed steps, in
 * the order they completed), once everything the run said has been said: on the turn's call, by
 * the model's call tools' own code (`runCallTool`), each recorded as a tool action of the turn and
 * heard by the listener as a tool call. An `end_call`'s closing line is said first. A refusal (say,
 * a destination the persona does not list) stops them and says why; so does a call handed on
 * (ended or transferred): nothing is done to a call after it has gone.
 */
export async function performCallActions(turn: TurnRequest, steps: StepRecord[]): Promise<CallActionsDone> {
  const done: CallActionsDone = { actions: [], said: [] };
  for (const step of steps) {
    if (step.status !== 'completed' || !isCallNodeType(step.type)) continue;
    const request = step.result as CallRequest;
    // the run asked only what the call can take; a call that lost a control since is told as one
    if (!turn.call || !callActionsOf(turn.call).includes(step.type)) {
      done.refused = `${step.type} node "${step.nodeId}" was refused: ${callUnavailable(step.type)}`;
      break;
    }
    if (request.call === 'end_call' && request.closingLine) {
      done.said.push(request.closingLine);
      turn.listener.text(`${request.closingLine} `);
    }
    const call = toolCallOf(step.nodeId, request);
    turn.listener.toolStarted({ id: call.id, name: call.function.name, arguments: call.function.arguments });
    const { action } = await runCallTool(turn.call, call, turn);
    done.actions.push(action);
    if (action.type !== 'tool') continue;
    const { success, durationMs, error } = action;
    turn.listener.toolFinished({
      id: call.id,
      name: call.function.name,
      success,
      durationMs,
      ...(error ? { error } : {}),
    });
    if (!success) {
      done.refused = `${step.type} node "${step.nodeId}" was refused: ${error}`;
      break;
    }
    if (handsCallOn(action)) break;
  }
  return done;
}
