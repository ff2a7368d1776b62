import type { ServerMessage } from '../../../src/sessions/stream/protocol';

/** One line of a test call's live transcript, in the order things happened. */
export type TranscriptEntry =
  | { kind: 'caller'; key: string; text: string; typed: boolean }
  | {
      kind: 'agent';
      key: string;
      turnId: string;
      text: string;
      /** reply.done came (the whole reply was sent). */
      done: boolean;
      /** The caller interrupted: only `spokenText` was heard. */
      interrupted?: { spokenText: string };
      /** The turn's index once the session recorded it. */
      recordedAs?: number;
    }
  | {
      kind: 'tool';
      key: string;
      name: string;
      arguments: string;
      result?: { success: boolean; durationMs: number; error?: string };
    }
  | { kind: 'workflow'; key: string; workflowName: string; status: string; speech: string[] }
  | { kind: 'error'; key: string; code: string; message: string }
  | { kind: 'ended'; key: string; reason: string; turnCount?: number };

/** What the transcript follows: the server's messages, text the caller typed, the stream closing unasked. */
export type TranscriptEvent = ServerMessage | { type: 'typed'; text: string } | { type: 'disconnected' };

let counter = 0;
const nextKey = () => `entry-${++counter}`;

type AgentEntry = Extract<TranscriptEntry, { kind: 'agent' }>;

/** The index of the last agent entry of `turnId` (-1 if none). */
const lastAgentOf = (entries: TranscriptEntry[], turnId: string) =>
  entries.findLastIndex((e) => e.kind === 'agent' && e.turnId === turnId);

function updateAgent(
  entries: TranscriptEntry[],
  turnId: string,
  change: (entry: AgentEntry) => Partial<AgentEntry>,
  create?: string,
): TranscriptEntry[] {
  const at = lastAgentOf(entries, turnId);
  if (at < 0) {
    if (create === undefined) return entries;
    const entry: AgentEntry = { kind: 'agent', key: nextKey(), turnId, text: create, done: false };
    return [...entries, { ...entry, ...change(entry) }];
  }
  const entry = entries[at] as AgentEntry;
  return entries.with(at, { ...entry, ...change(entry) });
}

/** Reply text as it streams: appended to the turn's agent line while it is the last line, else a new one. */
function appendDelta(entries: TranscriptEntry[], turnId: string, text: string): TranscriptEntry[] {
  const last = entries.at(-1);
  if (last?.kind === 'agent' && last.turnId === turnId) {
    return entries.with(-1, { ...last, text: last.text + text });
  }
  return [...entries, { kind: 'agent', key: nextKey(), turnId, text, done: false }];
}

/** A tool call's line: model call ids repeat across turns, so the turn is part of it. */
const toolKey = (m: { turnId: string; callId: string }) => `tool-${m.turnId}-${m.callId}`;

function toolFinished(
  entries: TranscriptEntry[],
  message: Extract<ServerMessage, { type: 'tool.finished' }>,
): TranscriptEntry[] {
  const key = toolKey(message);
  const at = entries.findLastIndex((e) => e.kind === 'tool' && e.key === key);
  const result = { success: message.success, durationMs: message.durationMs, error: message.error };
  if (at < 0) return [...entries, { kind: 'tool', key, name: message.name, arguments: '', result }];
  return entries.with(at, { ...(entries[at] as Extract<TranscriptEntry, { kind: 'tool' }>), result });
}

/** The transcript after one event of the call (a server message, or text the caller typed). */
export function transcriptReducer(entries: TranscriptEntry[], event: TranscriptEvent): TranscriptEntry[] {
  switch (event.type) {
    case 'session.ready':
      return [
        ...entries,
        { kind: 'agent', key: nextKey(), turnId: 'greeting', text: event.greeting, done: false },
      ];
    case 'typed':
      return [...entries, { kind: 'caller', key: nextKey(), text: event.text, typed: true }];
    case 'input.transcript':
      return [...entries, { kind: 'caller', key: nextKey(), text: event.text, typed: false }];
    case 'reply.delta':
      return appendDelta(entries, event.turnId, event.text);
    case 'reply.done':
      // a reply with no text deltas (a voice command's speech, the greeting) gets its line here
      return updateAgent(entries, event.turnId, () => ({ done: true }), event.text);
    case 'interrupted':
      return updateAgent(entries, event.turnId, () => ({ interrupted: { spokenText: event.spokenText } }));
    case 'turn.recorded':
      return updateAgent(
        entries,
        event.turnId,
        () => ({ recordedAs: event.turn.index }),
        event.turn.reply.text,
      );
    case 'tool.started':
      return [
        ...entries,
        { kind: 'tool', key: toolKey(event), name: event.name, arguments: event.arguments },
      ];
    case 'tool.finished':
      return toolFinished(entries, event);
    case 'workflow.step':
      return [
        ...entries,
        {
          kind: 'workflow',
          key: nextKey(),
          workflowName: event.workflowName,
          status: event.status,
          speech: event.speech,
        },
      ];
    case 'error':
      return [...entries, { kind: 'error', key: nextKey(), code: event.code, message: event.message }];
    case 'session.ended':
      return [
        ...entries,
        { kind: 'ended', key: nextKey(), reason: event.reason, turnCount: event.turnCount },
      ];
    case 'disconnected':
      return [...entries, { kind: 'ended', key: nextKey(), reason: 'disconnected' }];
    default:
      return entries;
  }
}
