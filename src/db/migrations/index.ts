import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000Foundation } from './Migration20261121000000Foundation';
import { Migration20261121100000Webhooks } from './Migration20261121100000Webhooks';
import { Migration20261121200000ToolsOAuth } from './Migration20261121200000ToolsOAuth';
import { Migration20261121300000Workflows } from './Migration20261121300000Workflows';
import { Migration20261123000000Personas } from './Migration20261123000000Personas';
import { Migration20261123100000Activities } from './Migration20261123100000Activities';
import { Migration20261123200000Sessions } from './Migration20261123200000Sessions';
import { Migration20261124000000Marketplace } from './Migration20261124000000Marketplace';
import { Migration20261124100000Analytics } from './Migration20261124100000Analytics';
import { Migration20261124200000ActivityMetrics } from './Migration20261124200000ActivityMetrics';
import { Migration20261124300000ActivityUserCounts } from './Migration20261124300000ActivityUserCounts';
import { Migration20261125000000ActivityUserMetrics } from './Migration20261125000000ActivityUserMetrics';
import { Migration20261125100000SessionTurnRounds } from './Migration20261125100000SessionTurnRounds';
import { Migration20261125200000TurnIdentity } from './Migration20261125200000TurnIdentity';
import { Migration20261126000000TurnEngine } from './Migration20261126000000TurnEngine';
import { Migration20261126100000TurnRecordings } from './Migration20261126100000TurnRecordings';
import { Migration20261126200000WorkflowVersions } from './Migration20261126200000WorkflowVersions';
import { Migration20261127000000IdempotencyKeys } from './Migration20261127000000IdempotencyKeys';
import { Migration20261127100000PersonaVersions } from './Migration20261127100000PersonaVersions';
import { Migration20261127200000CallAnalysis } from './Migration20261127200000CallAnalysis';
import { Migration20261127300000AgentTests } from './Migration20261127300000AgentTests';
import { Migration20261128200000ReviewTestGate } from './Migration20261128200000ReviewTestGate';
import { Migration20261129030000TestRunSessions } from './Migration20261129030000TestRunSessions';
import { Migration20261129060000LiveStreamLeases } from './Migration20261129060000LiveStreamLeases';
import { Migration20261129070000LiveStreamCooldowns } from './Migration20261129070000LiveStreamCooldowns';
import { Migration20261129080000PhoneNumbers } from './Migration20261129080000PhoneNumbers';
import { Migration20261129090000Calls } from './Migration20261129090000Calls';
import { Migration20261129100000CallRecordings } from './Migration20261129100000CallRecordings';
import { Migration20261129110000PersonaTools } from './Migration20261129110000PersonaTools';
import { Migration20261129120000Reviewers } from './Migration20261129120000Reviewers';
import { Migration20261129130000Providers } from './Migration20261129130000Providers';
import { Migration20261129140000Campaigns } from './Migration20261129140000Campaigns';
import { Migration20261129150000WarmTransfers } from './Migration20261129150000WarmTransfers';
import { Migration20261129160000Knowledge } from './Migration20261129160000Knowledge';
import { Migration20261129170000WebhookHealing } from './Migration20261129170000WebhookHealing';
import { Migration20261129180000KnowledgeEmbeddings } from './Migration20261129180000KnowledgeEmbeddings';
import { Migration20261130090000WebhookListeners } from './Migration20261130090000WebhookListeners';
import { Migration20261130100000ApiKeyChanges } from './Migration20261130100000ApiKeyChanges';
import { Migration20261130110000KnowledgeSearchIndexDirect } from './Migration20261130110000KnowledgeSearchIndexDirect';

/** Every migration in order; listed explicitly so compiled and TypeScript runs see the same set. */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261121000000Foundation', class: Migration20261121000000Foundation },
  { name: 'Migration20261121100000Webhooks', class: Migration20261121100000Webhooks },
  { name: 'Migration20261121200000ToolsOAuth', class: Migration20261121200000ToolsOAuth },
  { name: 'Migration20261121300000Workflows', class: Migration20261121300000Workflows },
  { name: 'Migration20261123000000Personas', class: Migration20261123000000Personas },
  { name: 'Migration20261123100000Activities', class: Migration20261123100000Activities },
  { name: 'Migration20261123200000Sessions', class: Migration20261123200000Sessions },
  { name: 'Migration20261124000000Marketplace', class: Migration20261124000000Marketplace },
  { name: 'Migration20261124100000Analytics', class: Migration20261124100000Analytics },
  { name: 'Migration20261124200000ActivityMetrics', class: Migration20261124200000ActivityMetrics },
  { name: 'Migration20261124300000ActivityUserCounts', class: Migration20261124300000ActivityUserCounts },
  { name: 'Migration20261125000000ActivityUserMetrics', class: Migration20261125000000ActivityUserMetrics },
  { name: 'Migration20261125100000SessionTurnRounds', class: Migration20261125100000SessionTurnRounds },
  { name: 'Migration20261125200000TurnIdentity', class: Migration20261125200000TurnIdentity },
  { name: 'Migration20261126000000TurnEngine', class: Migration20261126000000TurnEngine },
  { name: 'Migration20261126100000TurnRecordings', class: Migration20261126100000TurnRecordings },
  { name: 'Migration20261126200000WorkflowVersions', class: Migration20261126200000WorkflowVersions },
  { name: 'Migration20261127000000IdempotencyKeys', class: Migration20261127000000IdempotencyKeys },
  { name: 'Migration20261127100000PersonaVersions', class: Migration20261127100000PersonaVersions },
  { name: 'Migration20261127200000CallAnalysis', class: Migration20261127200000CallAnalysis },
  { name: 'Migration20261127300000AgentTests', class: Migration20261127300000AgentTests },
  { name: 'Migration20261128200000ReviewTestGate', class: Migration20261128200000ReviewTestGate },
  { name: 'Migration20261129030000TestRunSessions', class: Migration20261129030000TestRunSessions },
  { name: 'Migration20261129060000LiveStreamLeases', class: Migration20261129060000LiveStreamLeases },
  { name: 'Migration20261129070000LiveStreamCooldowns', class: Migration20261129070000LiveStreamCooldowns },
  { name: 'Migration20261129080000PhoneNumbers', class: Migration20261129080000PhoneNumbers },
  { name: 'Migration20261129090000Calls', class: Migration20261129090000Calls },
  { name: 'Migration20261129100000CallRecordings', class: Migration20261129100000CallRecordings },
  { name: 'Migration20261129110000PersonaTools', class: Migration20261129110000PersonaTools },
  { name: 'Migration20261129120000Reviewers', class: Migration20261129120000Reviewers },
  { name: 'Migration20261129130000Providers', class: Migration20261129130000Providers },
  { name: 'Migration20261129140000Campaigns', class: Migration20261129140000Campaigns },
  { name: 'Migration20261129150000WarmTransfers', class: Migration20261129150000WarmTransfers },
  { name: 'Migration20261129160000Knowledge', class: Migration20261129160000Knowledge },
  { name: 'Migration20261129170000WebhookHealing', class: Migration20261129170000WebhookHealing },
  { name: 'Migration20261129180000KnowledgeEmbeddings', class: Migration20261129180000KnowledgeEmbeddings },
  { name: 'Migration20261130090000WebhookListeners', class: Migration20261130090000WebhookListeners },
  { name: 'Migration20261130100000ApiKeyChanges', class: Migration20261130100000ApiKeyChanges },
  {
    name: 'Migration20261130110000KnowledgeSearchIndexDirect',
    class: Migration20261130110000KnowledgeSearchIndexDirect,
  },
];
