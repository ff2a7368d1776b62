/** SQL pieces of the rule that matches events to webhooks (the fan-out and recoveries share it). */

/**
 * Whether the event (alias `e`) is one of an agent-test run's session: the session its data names
 * (`sessionId`, or for a workflow's events the session of its execution) has a `test_run_id`.
 */
export const TEST_RUN_EVENT_SQL = `exists (select 1 from sessions s where s.test_run_id is not null and s.id = coalesce(
    e.payload::jsonb -> 'data' ->> 'sessionId',
    (select x.session_id from workflow_executions x where x.id = e.payload::jsonb -> 'data' ->> 'executionId')))`;

/** For a `webhook.disabled` event (alias `e`), the webhook it is about: never sent to that one. */
export const DISABLED_WEBHOOK_SQL = `case when e.type = 'webhook.disabled' then e.payload::jsonb -> 'data' ->> 'webhookId' end`;
