export { keypadInput } from './keypad-input';
export { checkPersonaTools } from './persona-tool-check';
export { mountTranscriptLinkRoute } from './report-links.routes';
export { Session } from './session.entity';
export { DEFAULT_VOICE_ID, sessionSpeechToText, sessionVoiceId } from './session-stack';
export {
  SessionDetailEnvelope,
  SessionEnvelope,
  TurnBody,
  TurnEnvelope,
  type TurnInput,
} from './sessions.schemas';
export { checkSessionOwned, endSession, getSession, startSession, takeTurn } from './sessions.service';
export { isBackchannel } from './stream/backchannels';
export { CallerAudio } from './stream/caller-audio';
export {
  Conversation,
  type ConversationOutput,
  type ConversationSession,
  MAX_WAITING_TURNS,
} from './stream/conversation';
export { KeypadCollector, type KeypadOptions } from './stream/keypad-collector';
export { isPersonaDestination, transferToPersona } from './stream/persona-handoff';
export type { ServerMessage } from './stream/protocol';
export { ConfirmedPlayback, type ReplyPlayback } from './stream/reply-playback';
export { STREAM_CLAIM_MS, StreamHold } from './stream/stream-hold';
export { type SessionStreams, sessionStreams } from './stream/stream-server';
export type { CallControls, TransferDestination, TransferRequest } from './turn/call-tools';
export { takeTurnOnce } from './turn-once';
