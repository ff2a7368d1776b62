import fs from 'node:fs';
import path from 'node:path';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

/** Where the recorded workflow histories live (one JSON file per scenario). */
export const HISTORIES_DIR = path.resolve(__dirname, '../histories');

/** The scenarios `npm run histories:record` records, by file name (without `.json`), with their workflow type. */
export const SCENARIOS = {
  'run-voice-workflow-condition': 'runVoiceWorkflow',
  'run-voice-workflow-parallel-join': 'runVoiceWorkflow',
  'run-voice-workflow-failing-node': 'runVoiceWorkflow',
  'deliver-webhook-retry': 'deliverWebhookWorkflow',
  /** A recovery paged one event per batch, two batches per run: its first run, continued as new. */
  'recover-webhook-events-continued': 'recoverWebhookEventsWorkflow',
  /** That recovery's last run: nothing more missed, completed. */
  'recover-webhook-events-completed': 'recoverWebhookEventsWorkflow',
  'review-persona-overdue-approved': 'reviewPersonaWorkflow',
  'review-persona-withdrawn': 'reviewPersonaWorkflow',
  /** A review gated on tests: its suite (one passing scenario) runs as its child, then the operator approves. */
  'review-persona-tested-approved': 'reviewPersonaWorkflow',
  /** With `requirePassingTests`: the suite fails and the review rejects the submission at once. */
  'review-persona-tests-failed-rejected': 'reviewPersonaWorkflow',
  /** A speak-only command, a command with a tool step (`command`, run in the workflow), a fallback, the end. */
  'voice-session-command-fallback-end': 'voiceSessionWorkflow',
  /** With a model: a command, an answer, a tool round (`tools`), each turn recorded (`turn`); the end. */
  'voice-session-model-turns': 'voiceSessionWorkflow',
  /**
   * Since the `session-turn-leases` patch: the idle timer fires under a slow turn and waits on its
   * lease (`turnLease`); `end` sent during a second slow turn records it first.
   */
  'voice-session-turn-held': 'voiceSessionWorkflow',
  'review-marketplace-item-checked-approved': 'reviewMarketplaceItemWorkflow',
  'remove-marketplace-item-removed': 'removeMarketplaceItemWorkflow',
  'remove-marketplace-item-restored': 'removeMarketplaceItemWorkflow',
  /** A post-call analysis: a first answer refused by the data schema, a second one valid, recorded. */
  'analyze-session-retried-completed': 'analyzeSessionWorkflow',
  /** A test run of one scenario (a child workflow), passed. */
  'test-run-passed': 'testRunWorkflow',
  /** The same run since the `test-run-checks-ended` patch: it first checks it has not ended already. */
  'test-run-checks-ended': 'testRunWorkflow',
  /**
   * That scenario: a session, a turn whose tool is mocked, a judge, the session's end, the result
   * (recorded before the `test-scenario-local-records` patch: its scenario read and result recorded
   * as activities).
   */
  'test-scenario-mocked-judged': 'testScenarioWorkflow',
  /** The same scenario since that patch: read and recorded as local activities. */
  'test-scenario-local-records': 'testScenarioWorkflow',
  /** The run since the `test-scenario-local-steps` patch: its children get a 4 s workflow task timeout. */
  'test-run-local-steps': 'testRunWorkflow',
  /** The scenario since that patch: its session's start, turn and end as local activities. */
  'test-scenario-local-steps': 'testScenarioWorkflow',
  /**
   * An outbound call: placed, ringing, answered, a late ringing ignored, streamConnected twice (one
   * session), completed twice (the second ignored).
   */
  'phone-call-answered-completed': 'phoneCallWorkflow',
  /**
   * A campaign of four contacts at concurrency 2: its calls as child workflows, a busy contact retried
   * after the delay, a pause and a resume (Workflow Updates), completed (`campaign.completed`).
   */
  'campaign-retried-paused-completed': 'campaignWorkflow',
  /**
   * Since the `campaign-carries-calls-over` patch: a run handed two calls under way by the run
   * before, hearing their ends (their word to the campaign, not the run), then continuing as new.
   */
  'campaign-carried-over': 'campaignWorkflow',
  /** A URL source's ingestion: the page fetched, extracted, chunked, made ready (`knowledge.source.ready`). */
  'ingest-knowledge-source-url-ready': 'ingestKnowledgeSourceWorkflow',
  /** An uploaded corrupt PDF: extraction fails, the source is failed with the reason (`knowledge.source.failed`). */
  'ingest-knowledge-source-pdf-failed': 'ingestKnowledgeSourceWorkflow',
} as const;

export type ScenarioName = keyof typeof SCENARIOS;

/*
 * historyToJSON / historyFromJSON of @temporalio/common do what the two functions below do, but
 * through @temporalio/common's own copy of protobufjs. In this install that is not the copy
 * @temporalio/proto's types are built with (npm cannot hoist protobufjs 8 to the root, where
 * @grpc/proto-loader's protobufjs 7 sits, so each Temporal package nests its own), and protojson
 * then refuses the type ("type must be a Type"). So we call protojson from @temporalio/proto's own
 * copy: the same proto JSON as the Temporal CLI and Web UI export.
 */
interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }): unknown;
}
const protojson: ProtoJson = require(
  require.resolve('protobufjs/ext/protojson', {
    paths: [path.dirname(require.resolve('@temporalio/proto/package.json'))],
  }),
);
const root = patchProtobufRoot(proto as unknown as Record<string, unknown>) as unknown as {
  lookupType(name: string): unknown;
};
const historyType = root.lookupType('temporal.api.history.v1.History');

/** Proto JSON of a history, as the Temporal CLI's `workflow show --output json` writes it. */
export function historyToJson(history: History): unknown {
  return protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history));
}

export function historyFromJson(json: unknown): History {
  const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history) throw new TypeError('invalid history JSON');
  return history as History;
}

/** Every recorded history in HISTORIES_DIR, named after its file. */
export function loadHistories(): (HistoryAndWorkflowId & { file: string; workflowType: string })[] {
  return fs
    .readdirSync(HISTORIES_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const history = historyFromJson(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')));
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      return {
        file,
        workflowId: file.replace(/\.json$/, ''),
        workflowType: started?.workflowType?.name ?? '?',
        history,
      };
    });
}
