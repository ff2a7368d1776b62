import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attribute types as spelled by the Temporal CLI (`--search-attribute Name=Type`). */
export type SearchAttributeTypeName =
  | 'Keyword'
  | 'Text'
  | 'Int'
  | 'Double'
  | 'Bool'
  | 'Datetime'
  | 'KeywordList';

/**
 * Custom search attributes set on the platform's executions, so an operator can filter the Temporal
 * Web UI by account, webhook, event type or workflow definition. Safe to import from workflow code.
 */
export const SEARCH_ATTRIBUTES = {
  AccountId: 'Keyword',
  WebhookId: 'Keyword',
  EventType: 'Keyword',
  WorkflowDefinitionId: 'Keyword',
} as const satisfies Record<string, SearchAttributeTypeName>;

export const AccountIdKey = defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD);
export const WebhookIdKey = defineSearchAttributeKey('WebhookId', SearchAttributeType.KEYWORD);
export const EventTypeKey = defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD);
export const WorkflowDefinitionIdKey = defineSearchAttributeKey(
  'WorkflowDefinitionId',
  SearchAttributeType.KEYWORD,
);
