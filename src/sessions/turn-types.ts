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
}
