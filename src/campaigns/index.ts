/**
 * Outbound campaigns (issue 42, docs/campaigns.md): a list of contacts called by one durable
 * workflow. Other areas and the composition root reach it only through this file.
 */

export { CampaignContactSchema, CampaignSchema } from './campaign.entity';
export { mountCampaignRoutes } from './campaigns.routes';
export { createCampaignOutboxHandler } from './outbox';
