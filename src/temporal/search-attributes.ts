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
 * Web UI by account, webhook, event type, workflow definition, persona, review kind, overdue review, phone number, call direction or call status. Safe to import from workflow code.
 */
export const SEARCH_ATTRIBUTES = {
  AccountId: 'Keyword',
  WebhookId: 'Keyword',
  EventType: 'Keyword',
  WorkflowDefinitionId: 'Keyword',
  PersonaId: 'Keyword',
  ReviewKind: 'Keyword',
  ReviewOverdue: 'Bool',
  UserId: 'Keyword',
  PhoneNumberId: 'Keyword',
  CallDirection: 'Keyword',
  CallStatus: 'Keyword',
} as const satisfies Record<string, SearchAttributeTypeName>;

export const AccountIdKey = defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD);
export const WebhookIdKey = defineSearchAttributeKey('WebhookId', SearchAttributeType.KEYWORD);
export const EventTypeKey = defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD);
export const WorkflowDefinitionIdKey = defineSearchAttributeKey(
  'WorkflowDefinitionId',
  SearchAttributeType.KEYWORD,
);
export const PersonaIdKey = defineSearchAttributeKey('PersonaId', SearchAttributeType.KEYWORD);
export const ReviewKindKey = defineSearchAttributeKey('ReviewKind', SearchAttributeType.KEYWORD);
export const UserIdKey = defineSearchAttributeKey('UserId', SearchAttributeType.KEYWORD);
export const ReviewOverdueKey = defineSearchAttributeKey('ReviewOverdue', SearchAttributeType.BOOL);
export const PhoneNumberIdKey = defineSearchAttributeKey('PhoneNumberId', SearchAttributeType.KEYWORD);
export const CallDirectionKey = defineSearchAttributeKey('CallDirection', SearchAttributeType.KEYWORD);
/** A call's status, kept current by its workflow (upsertSearchAttributes). */
export const CallStatusKey = defineSearchAttributeKey('CallStatus', SearchAttributeType.KEYWORD);
