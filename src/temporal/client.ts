import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type WorkflowClientInterceptor,
} from '@temporalio/client';
import { closedChannelGuard } from './closed-channel-guard';

/**
 * The client connection's gRPC interceptors: Temporal's default retry, then the guard, so that a
 * retry coming due after the app closed the connection fails its call instead of throwing from a
 * timer.
 */
export function temporalClientGrpcInterceptors() {
  return [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), closedChannelGuard];
}

export async function connectTemporalClient(opts: {
  address: string;
  namespace: string;
  /** Workflow client interceptors (tracing: the caller's span context into every start and update). */
  interceptors?: WorkflowClientInterceptor[];
}): Promise<Client> {
  const connection = await Connection.connect({
    address: opts.address,
    connectTimeout: '10 seconds',
    interceptors: temporalClientGrpcInterceptors(),
  });
  return new Client({
    connection,
    namespace: opts.namespace,
    interceptors: { workflow: opts.interceptors ?? [] },
  });
}
