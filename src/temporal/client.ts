import { Client, Connection } from '@temporalio/client';

export async function connectTemporalClient(opts: { address: string; namespace: string }): Promise<Client> {
  const connection = await Connection.connect({ address: opts.address, connectTimeout: '10 seconds' });
  return new Client({ connection, namespace: opts.namespace });
}
