import { List, Stack, Text } from '@mantine/core';
import type { components } from '../../api/schema';
import { CopyField } from './CopyField';

type PhoneNumber = components['schemas']['PhoneNumber'];

/** Twilio's console: where the number's voice webhook and status callback go. */
function TwilioSteps() {
  return (
    <List type="ordered" size="sm" spacing={4}>
      <List.Item>
        In the Twilio Console, open <b>Phone Numbers → Manage → Active numbers</b> and pick this number.
      </List.Item>
      <List.Item>
        Under <b>Voice configuration</b>, set <b>A call comes in</b> to <b>Webhook</b>, method{' '}
        <b>HTTP POST</b>, and paste the <b>inbound URL</b>.
      </List.Item>
      <List.Item>
        Paste the <b>status callback URL</b> into <b>Call status changes</b> (HTTP POST), then{' '}
        <b>Save configuration</b>.
      </List.Item>
      <List.Item>
        Calls the platform places need nothing more: it gives Twilio both URLs with each call.
      </List.Item>
    </List>
  );
}

/** Telnyx's portal: a Call Control Application whose webhook is the number's inbound URL. */
function TelnyxSteps() {
  return (
    <List type="ordered" size="sm" spacing={4}>
      <List.Item>
        In the Telnyx Mission Control Portal, open <b>Voice → Programmable Voice</b> and create (or open) a{' '}
        <b>Call Control Application</b>.
      </List.Item>
      <List.Item>
        Set its <b>Webhook URL</b> to the <b>inbound URL</b> (API v2 webhooks), and save.
      </List.Item>
      <List.Item>
        Under <b>Numbers</b>, assign this number to that application (its <b>Connection or Application</b>).
      </List.Item>
      <List.Item>
        The credentials: the <b>API key</b> and the <b>public key</b> are under{' '}
        <b>Account Settings → Keys &amp; Credentials</b>; the <b>connection id</b> is the Call Control
        Application's id.
      </List.Item>
    </List>
  );
}

/** What to paste where in the number's carrier console, with the URLs to copy. */
export function CarrierSetup({ number }: { number: PhoneNumber }) {
  return (
    <Stack gap="sm" data-testid="carrier-setup">
      <CopyField label="Inbound URL" value={number.inboundUrl} testId="inbound-url" />
      {number.provider === 'twilio' ? (
        <CopyField
          label="Status callback URL"
          value={number.statusCallbackUrl}
          testId="status-callback-url"
        />
      ) : null}
      <Text size="sm" fw={700}>
        {number.provider === 'twilio' ? 'At Twilio' : 'At Telnyx'}
      </Text>
      {number.provider === 'twilio' ? <TwilioSteps /> : <TelnyxSteps />}
    </Stack>
  );
}
