import type { components } from '../../api/schema';

export type Campaign = components['schemas']['Campaign'];
export type CampaignContact = components['schemas']['CampaignContact'];

/** Whether a campaign may still place calls (running or paused): its page keeps following it. */
export const campaignRunning = (c: Pick<Campaign, 'status'>) =>
  c.status === 'running' || c.status === 'paused';

/** "12 of 200 done · 3 calling · 14 calls". */
export const progressText = (c: Pick<Campaign, 'progress'>) =>
  `${c.progress.done} of ${c.progress.total} done · ${c.progress.calling} calling · ${c.progress.calls} calls`;
