import { newId } from '../common/ids';

/** The event types (docs/api-contract.md "Event types"): what a webhook may subscribe to. */
export const EVENT_TYPES = [
  'session.started',
  'session.ended',
  'session.analyzed',
  'tool.called',
  'tool.completed',
  'tool.failed',
  'workflow.started',
  'workflow.completed',
  'workflow.failed',
  'workflow.step.completed',
  'activity.created',
  'test_run.completed',
  'persona.rolled_back',
  'call.started',
  'call.ended',
  'call.transferred',
  'campaign.completed',
  'knowledge.source.ready',
  'knowledge.source.failed',
  'webhook.test',
  'webhook.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  'session.started': 'A user started a conversation',
  'session.ended': 'A user ended a conversation',
  'session.analyzed': "A conversation's post-call analysis finished (completed or failed)",
  'tool.called': 'A tool was invoked',
  'tool.completed': 'A tool execution finished',
  'tool.failed': 'A tool execution failed',
  'workflow.started': 'A workflow execution began',
  'workflow.completed': 'A workflow finished successfully',
  'workflow.failed': 'A workflow execution failed',
  'workflow.step.completed': 'A workflow step completed',
  'activity.created': 'A custom activity was logged',
  'test_run.completed': "A persona's test run ended (passed, failed or cancelled)",
  'persona.rolled_back': 'An earlier approved persona version was made live',
  'call.started': 'A phone call was answered',
  'call.ended': 'A phone call ended (completed, busy, no answer, failed or canceled)',
  'call.transferred': 'The agent put a phone call through to a number or SIP address (transfer_call)',
  'campaign.completed': "An outbound campaign's workflow ended (completed, or canceled), with its counts",
  'knowledge.source.ready': 'A knowledge source was indexed (added or refreshed): its chunks are searched',
  'knowledge.source.failed': 'A knowledge source could not be indexed, with the reason',
  'webhook.test': 'Sent by POST /webhooks/:id/test',
  'webhook.disabled':
    'Another webhook of the account was disabled: it failed too long, or its receiver answered 410 Gone',
};

/**
 * Realistic `data` for each type (docs/api-contract.md "Event types"; durations in milliseconds),
 * used by the sandbox trigger so receivers can be built before real traffic arrives.
 */
export function sampleEventData(type: EventType, personaId?: string): Record<string, unknown> {
  const sessionId = newId('sess');
  const userId = newId('usr');
  const persona = personaId ?? newId('persona');
  const toolId = newId('tool');
  const workflowId = newId('wf');
  const executionId = newId('exec');
  switch (type) {
    case 'session.started':
      return { sessionId, userId, personaId: persona };
    case 'session.ended':
      return {
        sessionId,
        userId,
        personaId: persona,
        duration: 184_000,
        turnCount: 12,
        reason: 'ended',
        ...sampleLinks(sessionId),
      };
    case 'session.analyzed':
      return analyzedSample(sessionId, persona);
    case 'tool.called':
      return { sessionId, toolId, toolName: 'lookup_order', arguments: { orderId: 'A-1042' } };
    case 'tool.completed':
      return { sessionId, toolId, toolName: 'lookup_order', success: true, duration: 342 };
    case 'tool.failed':
      return {
        sessionId,
        toolId,
        toolName: 'lookup_order',
        success: false,
        error: 'Upstream answered 503',
        duration: 1204,
      };
    case 'workflow.started':
      return { workflowId, executionId, sessionId, version: 3, input: { orderId: 'A-1042' } };
    case 'workflow.completed':
      return { workflowId, executionId, status: 'completed', duration: 2150, stepsExecuted: 5 };
    case 'workflow.failed':
      return {
        workflowId,
        executionId,
        status: 'failed',
        error: 'Tool lookup_order failed: Upstream answered 503',
        failedNodeId: 'lookup',
        duration: 1320,
        stepsExecuted: 2,
      };
    case 'workflow.step.completed':
      return { workflowId, executionId, nodeId: 'lookup', nodeType: 'mcp_call', duration: 410 };
    case 'activity.created':
      return {
        id: newId('act'),
        type: 'order_lookup',
        payload: { orderId: 'A-1042', description: 'Caller asked for the status of order A-1042' },
        userId,
        sessionId,
        personaId: persona,
        occurredAt: new Date().toISOString(),
      };
    case 'persona.rolled_back':
      return { personaId: persona, fromVersion: 3, toVersion: 2, rolledBackAt: new Date().toISOString() };
    case 'test_run.completed':
      return {
        runId: newId('testrun'),
        personaId: persona,
        personaVersion: null,
        status: 'failed',
        passed: 4,
        failed: 1,
        total: 5,
        durationMs: 8_400,
      };
    case 'call.started':
    case 'call.ended':
      return callSample(type, sessionId);
    case 'call.transferred':
      return { ...callSample('call.started', sessionId), destination: '+14155550188' };
    case 'campaign.completed':
      return campaignSample();
    case 'knowledge.source.ready':
    case 'knowledge.source.failed':
      return knowledgeSample(type);
    default: // webhook.test, webhook.disabled
      return webhookSample(type);
  }
}

/** A completed analysis's event data (`session.analyzed`). */
function analyzedSample(sessionId: string, personaId: string): Record<string, unknown> {
  return {
    analysisId: newId('ana'),
    sessionId,
    personaId,
    status: 'completed',
    summary: 'The caller asked where order A-1042 was; Ava found it out for delivery today.',
    success: { passed: true, reason: 'The order status was found and told to the caller.' },
    data: { orderId: 'A-1042', sentiment: 'positive' },
    error: null,
    ...sampleLinks(sessionId),
  };
}

/**
 * An end-of-call event's links, shaped like real ones (docs/sessions.md "End-of-call links") but
 * signed by no one: a sample's links open nothing (403).
 */
function sampleLinks(sessionId: string): Record<string, string> {
  const expires = Math.floor(Date.now() / 1000) + 7 * 86_400;
  const query = `expires=${expires}&signature=${'0'.repeat(64)}`;
  const api = 'https://voice.example.com/api/v2/developers/links';
  return {
    transcriptUrl: `${api}/sessions/${sessionId}/transcript?${query}`,
    recordingUrl: `${api}/calls/${newId('call')}/recording?${query}`,
    linksExpireAt: new Date(expires * 1000).toISOString(),
  };
}

/** A call's event data (`call.started` when answered, `call.ended` once over). */
function callSample(type: 'call.started' | 'call.ended', sessionId: string): Record<string, unknown> {
  const ended = type === 'call.ended';
  return {
    callId: newId('call'),
    sessionId,
    direction: 'outbound',
    from: '+14155552671',
    to: '+14155550123',
    status: ended ? 'completed' : 'in-progress',
    endedReason: ended ? 'completed' : null,
    durationS: ended ? 95 : null,
  };
}

/** A finished campaign's event data (`campaign.completed`). */
function campaignSample(): Record<string, unknown> {
  return {
    campaignId: newId('cmp'),
    name: 'Spring renewals',
    status: 'completed',
    outcomes: { answered: 141, busy: 3, 'no-answer': 12, voicemail: 40, failed: 4 },
    progress: { total: 200, done: 200, calling: 0, waitingRetry: 0, pending: 0, canceled: 0, calls: 236 },
  };
}

/** A knowledge source's ingestion outcome (`knowledge.source.ready` / `.failed`). */
function knowledgeSample(
  type: 'knowledge.source.ready' | 'knowledge.source.failed',
): Record<string, unknown> {
  const source = {
    sourceId: newId('ks'),
    knowledgeBaseId: newId('kb'),
    name: 'Returns policy.pdf',
    type: 'file',
    generation: 1,
  };
  return type === 'knowledge.source.ready'
    ? { ...source, chunks: 42 }
    : { ...source, reason: 'The PDF is damaged and cannot be read.' };
}

/** `webhook.test`, or an automatically disabled webhook (`webhook.disabled`, sent to the others). */
function webhookSample(type: 'webhook.test' | 'webhook.disabled'): Record<string, unknown> {
  if (type === 'webhook.test') return { message: 'This is a test event from the voice platform' };
  return {
    webhookId: newId('wh'),
    name: 'Order sync',
    url: 'https://example.com/hooks/voice',
    reason: 'failing',
    failingSince: new Date(Date.now() - 5 * 86_400_000).toISOString(),
    disabledAt: new Date().toISOString(),
  };
}
