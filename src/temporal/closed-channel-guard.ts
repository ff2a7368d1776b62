import { type InterceptingListener, type Interceptor, Metadata, status } from '@grpc/grpc-js';

/** What an interceptor's `nextCall` returns (grpc-js does not export the interface by name). */
type InterceptingCallInterface = ReturnType<Parameters<Interceptor>[1]>;

/**
 * A gRPC client interceptor, placed behind Temporal's retry interceptor, that turns "the channel is
 * closed" into a failed call instead of an exception.
 *
 * Why: the retry interceptor retries a call that failed with, say, UNAVAILABLE from a `setTimeout`.
 * When the app closes its Temporal connection while such a timer is pending, the timer's new
 * attempt asks the closed channel for a call, grpc-js throws "Channel has been shut down" inside
 * the timer, and nothing can catch it: the process sees an uncaught exception. With this guard
 * the attempt ends with status CANCELLED (not retryable), and the caller's promise rejects as it
 * would for any failed call.
 */
export const closedChannelGuard: Interceptor = (options, nextCall) => {
  try {
    return nextCall(options) as ReturnType<Interceptor>;
  } catch (err) {
    const details = err instanceof Error ? err.message : String(err);
    const unary = !options.method_definition.responseStream;
    return new FailedCall(details, unary) as unknown as ReturnType<Interceptor>;
  }
};

/**
 * A call that never reached the channel: it reports CANCELLED to its listener, once, after start.
 * Like grpc-js's own unary calls, it hands an empty message (null) before the status, which the
 * listeners above it (the retry interceptor among them) expect.
 */
class FailedCall implements InterceptingCallInterface {
  constructor(
    private readonly details: string,
    private readonly unary: boolean,
  ) {}

  start(_metadata: Metadata, listener?: Partial<InterceptingListener>): void {
    const report = { code: status.CANCELLED, details: this.details, metadata: new Metadata() };
    setImmediate(() => {
      if (this.unary) listener?.onReceiveMessage?.(null);
      listener?.onReceiveStatus?.(report);
    });
  }
  sendMessageWithContext(context: { callback?: (error?: Error | null) => void }): void {
    context.callback?.();
  }
  sendMessage(): void {}
  startRead(): void {}
  halfClose(): void {}
  cancelWithStatus(): void {}
  getPeer(): string {
    return '';
  }
  getAuthContext(): null {
    return null;
  }
}
