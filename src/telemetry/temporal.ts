import type { WorkflowClientInterceptor } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInboundCallsInterceptor, WorkerOptions } from '@temporalio/worker';
import { activityScheduleToStart } from './metrics';
import type { Tracing } from './tracing';

/**
 * Temporal's part of a trace, with @temporalio/interceptors-opentelemetry: the client puts the active
 * span's context in the headers of every start, signal and update; the workflow's interceptors (in the
 * traced bundle) continue it and hand it to each activity; the activity's span is its child, so a
 * request's trace runs from the API through the workflow to the activity's outbound calls.
 */
export function clientTracingInterceptors(tracing: Tracing): WorkflowClientInterceptor[] {
  return tracing.enabled ? [new OpenTelemetryWorkflowClientInterceptor()] : [];
}

/** The module the traced workflow bundle adds (docs/operations.md "Traces"). */
export const WORKFLOW_TRACING_MODULE = require.resolve(
  '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
);

/** Measures each activity attempt's wait in the task queue (schedule-to-start), traced or not. */
class ScheduleToStartInterceptor implements ActivityInboundCallsInterceptor {
  constructor(private readonly info: { activityType: string; currentAttemptScheduledTimestampMs: number }) {}

  execute: NonNullable<ActivityInboundCallsInterceptor['execute']> = (input, next) => {
    const waitedMs = Date.now() - this.info.currentAttemptScheduledTimestampMs;
    activityScheduleToStart.observe({ activity: this.info.activityType }, Math.max(0, waitedMs) / 1000);
    return next(input);
  };
}

/**
 * The worker's interceptors and sinks: the schedule-to-start metric always, the tracing ones when on.
 * `bundled`: the workflows come from a prebuilt bundle, which already holds the workflow module.
 */
export function workerTelemetryOptions(
  tracing: Tracing,
  opts: { bundled: boolean },
): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const activity: NonNullable<NonNullable<WorkerOptions['interceptors']>['activity']> = [
    (ctx) => ({ inbound: new ScheduleToStartInterceptor(ctx.info) }),
  ];
  if (!tracing.enabled || !tracing.processor || !tracing.resource) return { interceptors: { activity } };
  activity.push((ctx) => ({
    inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  }));
  return {
    interceptors: { activity, ...(opts.bundled ? {} : { workflowModules: [WORKFLOW_TRACING_MODULE] }) },
    sinks: { exporter: makeWorkflowExporter(tracing.processor, tracing.resource) },
  };
}
