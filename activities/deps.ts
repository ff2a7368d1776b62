import type { TestSessionDriver } from '../src/agent-tests/agent-test-types';
import type { CoreContext } from '../src/common/context';
import type { CallSessionDriver } from '../src/telephony/calls/call-types';

/**
 * What activities are built from (dependency injection, as in temporalio/samples-typescript).
 * `testSessions` drives the session engine for agent tests: given by the composition root
 * (src/app/runtime.ts), since the engine's own workflows import the activities' types; likewise
 * `callSessions`, which starts and ends phone calls' sessions.
 */
export type ActivityDeps = CoreContext & {
  testSessions?: TestSessionDriver;
  callSessions?: CallSessionDriver;
};
