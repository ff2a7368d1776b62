import net from 'node:net';
import type { Interceptor } from '@grpc/grpc-js';
import { InterceptingCall } from '@grpc/grpc-js';
import { Connection } from '@temporalio/client';
import { temporalClientGrpcInterceptors } from '../src/temporal/client';

/** A port nothing listens on: every attempt fails UNAVAILABLE, so the retry interceptor waits. */
async function refusedAddress(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

/** Sits between the retry interceptor and the guard; resolves once the first attempt has failed. */
function firstFailure(): { probe: Interceptor; failed: Promise<void> } {
  let resolve!: () => void;
  const failed = new Promise<void>((r) => {
    resolve = r;
  });
  const probe: Interceptor = (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, _listener, next) {
        next(metadata, {
          onReceiveMetadata: (received, nextMetadata) => nextMetadata(received),
          onReceiveMessage: (message, nextMessage) => nextMessage(message),
          onReceiveStatus: (status, nextStatus) => {
            resolve();
            nextStatus(status);
          },
        });
      },
    });
  return { probe, failed };
}

describe('a Temporal client call whose retry comes due after the connection closed', () => {
  it('fails with CANCELLED instead of throwing "Channel has been shut down" from a timer', async () => {
    const [retry, guard] = temporalClientGrpcInterceptors();
    const { probe, failed } = firstFailure();
    const connection = Connection.lazy({
      address: await refusedAddress(),
      interceptors: [retry, probe, guard],
    });
    const call = connection.workflowService.getSystemInfo({});
    const outcome = call.then(
      () => 'answered',
      (err: { code?: number; details?: string }) => err,
    );
    await failed; // the retry interceptor now holds a timer for the second attempt
    await connection.close();
    const err = (await outcome) as { code?: number; details?: string };
    expect(err.code).toBe(1); // CANCELLED: not retried
    expect(err.details).toMatch(/Channel has been shut down/);
  });

  it('still lets the retry interceptor retry a call on an open connection', async () => {
    const [retry, guard] = temporalClientGrpcInterceptors();
    let attempts = 0;
    let secondAttempt!: () => void;
    const retried = new Promise<void>((resolve) => {
      secondAttempt = resolve;
    });
    const counter: Interceptor = (options, nextCall) => {
      attempts += 1;
      if (attempts === 2) secondAttempt();
      return new InterceptingCall(nextCall(options));
    };
    const connection = Connection.lazy({
      address: await refusedAddress(),
      interceptors: [retry, counter, guard],
    });
    const outcome = connection.workflowService.getSystemInfo({}).catch((err: unknown) => err);
    await retried;
    await connection.close();
    await outcome;
    expect(attempts).toBeGreaterThanOrEqual(2);
  });
});
