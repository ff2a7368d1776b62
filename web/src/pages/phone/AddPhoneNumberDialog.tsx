import {
  Button,
  Group,
  Modal,
  NativeSelect,
  PasswordInput,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { personasQuery } from '../../api/queries';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ui';

type Carrier = 'twilio' | 'telnyx';
interface NumberFieldValues {
  number: string;
  name: string;
  personaId: string;
}
type PhoneNumber = components['schemas']['PhoneNumber'];
type Credentials = components['schemas']['TwilioCredentials'] & components['schemas']['TelnyxCredentials'];

const NO_CREDENTIALS: Credentials = {
  accountSid: '',
  authToken: '',
  apiKey: '',
  publicKey: '',
  connectionId: '',
};

/** The carrier account's credentials, in its shape (never shown again once the number is added). */
function CredentialFields(props: {
  carrier: Carrier;
  value: Credentials;
  onChange(next: Credentials): void;
}) {
  const { carrier, value, onChange } = props;
  const field = (name: keyof Credentials) => ({
    value: value[name],
    required: true,
    onChange: (e: { currentTarget: { value: string } }) =>
      onChange({ ...value, [name]: e.currentTarget.value }),
  });
  if (carrier === 'twilio') {
    return (
      <>
        <TextInput
          label="Account SID"
          description="AC and 32 hex digits (Twilio Console → Account info)"
          {...field('accountSid')}
        />
        <PasswordInput
          label="Auth token"
          description="Signs Twilio's webhooks to the platform"
          {...field('authToken')}
        />
      </>
    );
  }
  return (
    <>
      <PasswordInput
        label="API key"
        description="Account Settings → Keys & Credentials → API Keys"
        {...field('apiKey')}
      />
      <TextInput
        label="Public key"
        description="Account Settings → Keys & Credentials → Public Key (base64)"
        {...field('publicKey')}
      />
      <TextInput
        label="Connection id"
        description="The Call Control Application's id"
        {...field('connectionId')}
      />
    </>
  );
}

/** The create request's body for the carrier picked, with that carrier's credentials only. */
function createBody(
  carrier: Carrier,
  fields: { number: string; name: string; personaId: string },
  c: Credentials,
) {
  const common = {
    number: fields.number.trim(),
    personaId: fields.personaId,
    name: fields.name.trim() || undefined,
  };
  return carrier === 'twilio'
    ? {
        ...common,
        provider: 'twilio' as const,
        credentials: { accountSid: c.accountSid.trim(), authToken: c.authToken },
      }
    : {
        ...common,
        provider: 'telnyx' as const,
        credentials: { apiKey: c.apiKey, publicKey: c.publicKey.trim(), connectionId: c.connectionId.trim() },
      };
}

/** The number, its name, and the persona that answers it (the first of the account's until one is picked). */
function NumberFields(props: {
  value: NumberFieldValues;
  onChange(next: NumberFieldValues): void;
  personas: { id: string; name: string; status: string }[];
}) {
  const { value: fields, onChange: setFields } = props;
  return (
    <>
      <TextInput
        label="Number"
        description="E.164: + and the country code, digits only (+14155552671)"
        required
        value={fields.number}
        onChange={(e) => setFields({ ...fields, number: e.currentTarget.value })}
      />
      <TextInput
        label="Name"
        placeholder="Support line"
        value={fields.name}
        onChange={(e) => setFields({ ...fields, name: e.currentTarget.value })}
      />
      <NativeSelect
        label="Persona"
        description="Answers the number's calls and places its calls (a live number needs a published persona)"
        required
        value={fields.personaId}
        onChange={(e) => setFields({ ...fields, personaId: e.currentTarget.value })}
        data={props.personas.map((p) => ({
          value: p.id,
          label: `${p.name || p.id} (${p.status})`,
        }))}
      />
    </>
  );
}

/** "Add a number": the carrier, the number, the persona that answers it, and the carrier account's credentials. */
export function AddPhoneNumberDialog(props: {
  opened: boolean;
  onClose(): void;
  onAdded(number: PhoneNumber): void;
}) {
  const personas = useQuery({ ...personasQuery(), enabled: props.opened });
  const [carrier, setCarrier] = useState<Carrier>('twilio');
  const [fields, setFields] = useState({ number: '', name: '', personaId: '' });
  const [credentials, setCredentials] = useState<Credentials>(NO_CREDENTIALS);
  const personaId = fields.personaId || personas.data?.[0]?.id || '';
  const add = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v2/developers/phone-numbers', {
          body: createBody(carrier, { ...fields, personaId }, credentials),
        }),
      ).data,
    onSuccess: (number) => {
      setFields({ number: '', name: '', personaId: '' });
      setCredentials(NO_CREDENTIALS);
      add.reset();
      props.onAdded(number);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Add a phone number" size="lg">
      <form onSubmit={submit}>
        <Stack>
          <SegmentedControl
            aria-label="Carrier"
            value={carrier}
            onChange={(v) => setCarrier(v as Carrier)}
            data={[
              { value: 'twilio', label: 'Twilio' },
              { value: 'telnyx', label: 'Telnyx' },
            ]}
          />
          <NumberFields
            value={{ ...fields, personaId }}
            onChange={setFields}
            personas={personas.data ?? []}
          />
          <CredentialFields carrier={carrier} value={credentials} onChange={setCredentials} />
          <Text size="xs" c="dimmed">
            The credentials are stored encrypted and never shown again.
          </Text>
          <ErrorAlert error={add.error} title="The number was not added" />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={add.isPending} disabled={!personaId}>
              Add number
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
