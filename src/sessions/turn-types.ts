import type { TurnAction } from './session.entity';
import type { TurnRoute } from './statuses';

/** The turn as recorded and answered (the API adds audio): what the `turn` update answers. */
export interface TurnRecord {
  index: number;
  text: string;
  reply: { text: string };
  route: TurnRoute;
  actions: TurnAction[];
  error: string | null;
  latencyMs: number;
  /** The caller interrupted the reply: only `spokenText` of it was heard. */
  interrupted: boolean;
  /** What of the reply was spoken (all of it unless interrupted); the next turn's history holds this. */
  spokenText: string;
}

/** What a tool call came to: the turn's action, and what goes back to the model. */
export interface AgentToolOutcome {
  action: TurnAction;
  content: string;
}
