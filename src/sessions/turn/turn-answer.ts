import type { TurnAnswer, TurnRequest } from './turn-listener';

/** A turn's answer: what was said and how, timed from when the turn began. */
export function answer(
  turn: TurnRequest,
  a: Pick<TurnAnswer, 'route' | 'actions' | 'error'> & { reply: string; interrupted?: boolean },
): TurnAnswer {
  return {
    text: turn.text,
    reply: { text: a.reply },
    route: a.route,
    actions: a.actions,
    error: a.error,
    latencyMs: Math.max(0, Date.now() - turn.startedAt),
    interrupted: a.interrupted ?? turn.signal.aborted,
  };
}

/** A reply decided at once, without a model or a tool. */
export function say(turn: TurnRequest, route: 'refusal' | 'fallback', reply: string): TurnAnswer {
  turn.listener.text(reply);
  return answer(turn, { route, reply, actions: [], error: null });
}
