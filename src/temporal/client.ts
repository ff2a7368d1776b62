import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';

export async function connectTemporalClient(opts: {
  address: string;
  namespace: string;
  /** Workflow client interceptors (tracing: the caller's span context into every start and update). */
  interceptors?: WorkflowClientInterceptor[];
}): Promise<Client> {
  const connection = await Connection.connect({ address: opts.address, connectTimeout: '10 seconds' });
  return new Client({
    connection,
    namespace: opts.namespace,
    interceptors: { workflow: opts.interceptors ?? [] },
  });
}
