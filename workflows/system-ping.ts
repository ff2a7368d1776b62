import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { checkDatabase } = proxyActivities<Activities>({
  startToCloseTimeout: '5 seconds',
  retry: { maximumAttempts: 2 },
});

export interface SystemPingInput {
  requestedAt: string;
}

export interface SystemPingResult {
  requestedAt: string;
  database: { ok: boolean; serverTime: string };
}

/** A round trip through a worker and the database: used by `/readyz?deep=true` to prove workers are polling. */
export async function systemPingWorkflow(input: SystemPingInput): Promise<SystemPingResult> {
  return { requestedAt: input.requestedAt, database: await checkDatabase() };
}
