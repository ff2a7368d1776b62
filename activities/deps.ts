import type { CoreContext } from '../src/common/context';

/** What activities are built from (dependency injection, as in temporalio/samples-typescript). */
export type ActivityDeps = CoreContext;
