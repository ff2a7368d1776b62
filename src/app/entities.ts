import { AccountSchema } from '../accounts/account.entity';
import { ActivitySchema } from '../activity-log/activity.entity';
import { TestRunResultSchema, TestRunSchema, TestScenarioSchema } from '../agent-tests/agent-test.entity';
import { CampaignContactSchema, CampaignSchema } from '../campaigns';
import { EventSchema } from '../events/event.entity';
import { IdempotencyKeySchema } from '../idempotency/idempotency-key.entity';
import { ApiKeySchema } from '../keys/api-key.entity';
import { KnowledgeBaseSchema, KnowledgeSourceSchema } from '../knowledge';
import {
  MarketplaceQuotaCounterSchema,
  MarketplaceUsageRecordSchema,
} from '../marketplace/execution/usage.entity';
import { MarketplaceInstallationSchema } from '../marketplace/installations/installation.entity';
import {
  MarketplaceItemSchema,
  MarketplaceItemVersionSchema,
  MarketplacePublisherSchema,
} from '../marketplace/items/item.entity';
import { MarketplaceRemovalSchema } from '../marketplace/removal/removal.entity';
import { McpServerSchema } from '../mcp/mcp-server.entity';
import { OAuthAuthorizationSchema, OAuthProviderSchema, OAuthTokenSchema } from '../oauth/oauth.entity';
import { PersonaSchema } from '../personas/persona.entity';
import { PersonaVersionSchema } from '../personas/persona-version.entity';
import { ProviderSchema } from '../providers';
import { ReviewSchema } from '../reviews/review.entity';
import { SecretSchema } from '../secrets/secret.entity';
import { SessionSchema, SessionTurnSchema } from '../sessions/session.entity';
import { CallSchema } from '../telephony/calls/call.entity';
import { PhoneNumberSchema } from '../telephony/phone-numbers/phone-number.entity';
import { ToolSchema } from '../tools/tool.entity';
import { WorkflowDefinitionSchema, WorkflowExecutionSchema } from '../voice-workflows/workflow.entity';
import { WorkflowVersionSchema } from '../voice-workflows/workflow-version.entity';
import { DeliveryAttemptSchema, DeliverySchema } from '../webhooks/delivery.entity';
import { WebhookRecoverySchema } from '../webhooks/recovery.entity';
import { WebhookSchema } from '../webhooks/webhook.entity';

/** Every entity of the service; migrations are written against this list. */
export const entities = [
  AccountSchema,
  ApiKeySchema,
  SecretSchema,
  ProviderSchema,
  WebhookSchema,
  EventSchema,
  DeliverySchema,
  DeliveryAttemptSchema,
  WebhookRecoverySchema,
  OAuthProviderSchema,
  OAuthAuthorizationSchema,
  OAuthTokenSchema,
  McpServerSchema,
  ToolSchema,
  WorkflowDefinitionSchema,
  WorkflowExecutionSchema,
  WorkflowVersionSchema,
  PersonaSchema,
  PersonaVersionSchema,
  ReviewSchema,
  SessionSchema,
  SessionTurnSchema,
  ActivitySchema,
  MarketplacePublisherSchema,
  MarketplaceItemSchema,
  MarketplaceItemVersionSchema,
  MarketplaceRemovalSchema,
  MarketplaceInstallationSchema,
  MarketplaceQuotaCounterSchema,
  MarketplaceUsageRecordSchema,
  IdempotencyKeySchema,
  TestScenarioSchema,
  TestRunSchema,
  TestRunResultSchema,
  PhoneNumberSchema,
  CallSchema,
  CampaignSchema,
  CampaignContactSchema,
  KnowledgeBaseSchema,
  KnowledgeSourceSchema,
];
