export { Session } from './session.entity';
export {
  SessionDetailEnvelope,
  SessionEnvelope,
  TurnBody,
  TurnEnvelope,
  type TurnInput,
} from './sessions.schemas';
export { endSession, getSession, startSession, takeTurn } from './sessions.service';
