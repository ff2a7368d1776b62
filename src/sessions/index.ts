export { Session } from './session.entity';
export {
  SessionDetailEnvelope,
  SessionEnvelope,
  TurnBody,
  TurnEnvelope,
  type TurnInput,
} from './sessions.schemas';
export { checkSessionOwned, endSession, getSession, startSession, takeTurn } from './sessions.service';
export { type SessionStreams, sessionStreams } from './stream/stream-server';
export { takeTurnOnce } from './turn-once';
