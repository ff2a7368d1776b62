import type { MutationTable } from '../concurrent-mutations';
import { successes } from '../concurrent-mutations';
import { freshNumber, twilioCredentials } from '../phone-numbers';
import { call } from '../test-app';
import { type BaseEnv, count, draftPersona, ok, unique } from './fixtures';
import { P } from './platform-fixtures';

const sandbox = (env: BaseEnv, method: string, path: string, body?: unknown) =>
  call(env.app.baseUrl, method, `${P}${path}`, { token: env.dev.testKey, body });

/**
 * Calling hours that are closed now (an hour that starts two hours from now, UTC): the campaign's
 * workflow runs, and waits, placing nothing, so its pause, resume and cancel race on a live one.
 */
function closedHours() {
  const hour = (new Date().getUTCHours() + 2) % 24;
  const hh = (h: number) => String(h).padStart(2, '0');
  return { start: `${hh(hour)}:00`, end: `${hh((hour + 1) % 24)}:00`, timezone: 'UTC' };
}

/** A campaign body of the race's developer: a number with a draft persona, three contacts. */
async function campaignBody(env: BaseEnv, name = unique('race-campaign')) {
  const personaId = await draftPersona(env);
  const number = await ok(
    sandbox(env, 'POST', '/phone-numbers', {
      number: freshNumber(),
      provider: 'twilio',
      personaId,
      credentials: twilioCredentials(),
    }),
    'create phone number',
  );
  return {
    name,
    phoneNumberId: number.body.data.id as string,
    personaId,
    contacts: ['+14155550171', '+14155550172', '+14155550173'].map((to) => ({ to })),
    concurrency: 1,
    callingHours: closedHours(),
    retry: { onBusy: false, onNoAnswer: false, onVoicemail: false, maxAttempts: 1, delayMinutes: 0 },
  };
}

/** A campaign to race a control on, paused first when `paused`. */
async function campaign(env: BaseEnv, paused = false): Promise<string> {
  const created = await ok(sandbox(env, 'POST', '/campaigns', await campaignBody(env)), 'create campaign');
  const id = created.body.data.id as string;
  if (paused) await ok(sandbox(env, 'POST', `/campaigns/${id}/pause`), 'pause campaign');
  return id;
}

/** A control raced: every answer 2xx, and the campaign ends up as asked. */
const control = (action: 'pause' | 'resume' | 'cancel', status: string) => ({
  kind: 'action' as const,
  prepare: async (env: BaseEnv) => {
    const id = await campaign(env, action === 'resume');
    return {
      request: { method: 'POST' as const, path: `${P}/campaigns/${id}/${action}`, token: env.dev.testKey },
      check: async () => {
        const current = (await sandbox(env, 'GET', `/campaigns/${id}`)).body.data;
        expect(current.status).toBe(status);
        // nothing was placed: the calling hours are closed
        expect(current.progress.calls).toBe(0);
      },
    };
  },
});

/** Campaigns (docs/campaigns.md). */
export const platformCampaignCases: MutationTable<BaseEnv> = {
  'POST /api/v2/developers/campaigns': {
    kind: 'create',
    prepare: async (env) => {
      const body = await campaignBody(env);
      return {
        request: { method: 'POST', path: `${P}/campaigns`, token: env.dev.testKey, body },
        check: async (answers) => {
          const created = await count(env.app, 'select count(*) from campaigns where name = ?', [body.name]);
          expect(successes(answers)).toHaveLength(created);
          // each whole: its three contacts, none of another's
          const contacts = await count(
            env.app,
            'select count(*) from campaign_contacts c join campaigns k on k.id = c.campaign_id where k.name = ?',
            [body.name],
          );
          expect(contacts).toBe(created * 3);
        },
      };
    },
  },
  'POST /api/v2/developers/campaigns/{id}/pause': control('pause', 'paused'),
  'POST /api/v2/developers/campaigns/{id}/resume': control('resume', 'running'),
  'POST /api/v2/developers/campaigns/{id}/cancel': control('cancel', 'canceled'),
};
