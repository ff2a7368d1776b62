import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { type Dispatcher, request } from 'undici';
import { inClientSpan } from '../telemetry/tracing';
import { ANSWER_LIMITS, cappedChunks } from './answer-limits';

/** A tool call as a streamed answer assembles it (its arguments arrive in pieces). */
export interface StreamedToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** What a streamed chat completion yields: text as it arrives, then the whole answer once. */
export type ModelStreamEvent =
  | { type: 'delta'; text: string }
  | {
      type: 'done';
      content: string | null;
      toolCalls: StreamedToolCall[];
      finishReason: string | null;
      /** The tokens the provider counted, when it said (OpenAI: with `stream_options.include_usage`). */
      usage?: ModelUsage;
    };

/** A completion's tokens, as the provider counted them. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

/** The provider refused the request, or its stream could not be read as a chat completion. */
export class ModelStreamError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ModelStreamError';
  }
}

interface ChunkDelta {
  content?: string | null;
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

/** Accumulates a streamed answer: its text and its tool calls, whose pieces are keyed by index. */
class StreamedAnswer {
  content = '';
  sawContent = false;
  finishReason: string | null = null;
  usage?: ModelUsage;
  private readonly calls = new Map<number, StreamedToolCall>();

  add(delta: ChunkDelta | undefined, finishReason: string | null | undefined): string | undefined {
    if (finishReason) this.finishReason = finishReason;
    for (const piece of delta?.tool_calls ?? []) {
      const call = this.calls.get(piece.index) ?? {
        id: '',
        type: 'function',
        function: { name: '', arguments: '' },
      };
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.function.name += piece.function.name;
      if (piece.function?.arguments) call.function.arguments += piece.function.arguments;
      this.calls.set(piece.index, call);
    }
    if (typeof delta?.content !== 'string' || delta.content === '') return undefined;
    this.sawContent = true;
    this.content += delta.content;
    return delta.content;
  }

  done(): ModelStreamEvent {
    const toolCalls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    if (toolCalls.some((c) => !c.id || !c.function.name))
      throw new ModelStreamError('The LLM provider streamed a malformed tool call');
    return {
      type: 'done',
      content: this.sawContent ? this.content : null,
      toolCalls,
      finishReason: this.finishReason,
      ...(this.usage ? { usage: this.usage } : {}),
    };
  }
}

/** One server-sent event's chunk: its text delta, if any; `[DONE]` ends the stream. */
function readChunk(message: EventSourceMessage, answer: StreamedAnswer): string | undefined | 'end' {
  if (message.data === '[DONE]') return 'end';
  let chunk: {
    choices?: { delta?: ChunkDelta; finish_reason?: string | null }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
  };
  try {
    chunk = JSON.parse(message.data);
  } catch {
    throw new ModelStreamError('The LLM provider streamed a chunk that is not JSON');
  }
  const { prompt_tokens: input, completion_tokens: output } = chunk.usage ?? {};
  if (typeof input === 'number' && typeof output === 'number')
    answer.usage = { inputTokens: input, outputTokens: output };
  const choice = chunk.choices?.[0];
  return answer.add(choice?.delta, choice?.finish_reason);
}

/**
 * Streams a chat completion from an OpenAI-compatible provider (`stream: true`, server-sent events):
 * each piece of text as soon as it arrives, then the whole answer (text and tool calls) once. The
 * body is sent as given, with `stream: true` added. Aborting `signal`, or leaving the loop early,
 * closes the connection, so the provider stops generating. A refusal (non-2xx) or a stream that is not
 * a chat completion throws ModelStreamError; a stream that ends without `[DONE]` still answers what
 * arrived. The stream is read within ANSWER_LIMITS.modelStream: its deadline (besides `signal`), and
 * its cap, past which the connection is closed and the read throws OutboundError 'too_large'.
 */
export async function* streamChatCompletion(opts: {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  signal: AbortSignal;
  /** How to connect (an account's provider: the SSRF-guarded agent); default: undici's global one. */
  dispatcher?: Dispatcher;
}): AsyncGenerator<ModelStreamEvent> {
  // the span covers the wait for the answer's head (the first token's latency lives there)
  const response = await inClientSpan(
    'POST',
    opts.url,
    () =>
      request(opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...opts.headers },
        body: JSON.stringify({ ...opts.body, stream: true }),
        signal: AbortSignal.any([opts.signal, AbortSignal.timeout(ANSWER_LIMITS.modelStream.timeoutMs)]),
        ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
      }),
    (answer) => answer.statusCode,
  );
  let answered = false;
  try {
    if (response.statusCode < 200 || response.statusCode >= 300) {
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      throw new ModelStreamError(`LLM provider answered ${response.statusCode}`, response.statusCode);
    }
    const answer = new StreamedAnswer();
    const messages: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (message) => messages.push(message) });
    const decoder = new TextDecoder();
    for await (const bytes of cappedChunks(response.body, ANSWER_LIMITS.modelStream.maxBytes)) {
      parser.feed(decoder.decode(bytes as Buffer, { stream: true }));
      for (const message of messages.splice(0)) {
        const text = readChunk(message, answer);
        if (text === 'end') {
          answered = true;
          yield answer.done();
          return;
        }
        if (text) yield { type: 'delta', text };
      }
    }
    answered = true;
    yield answer.done();
  } finally {
    if (!answered || opts.signal.aborted) {
      // left early (the caller stopped listening, or aborted) or failed: the provider sees its
      // connection close and stops generating
      response.body.destroy();
    } else if (!response.body.readableEnded) {
      // answered: what follows `[DONE]` is read off, so the kept connection serves the next call
      response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    }
  }
}
