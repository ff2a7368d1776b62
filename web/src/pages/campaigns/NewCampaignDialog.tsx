import {
  Alert,
  Button,
  Checkbox,
  FileInput,
  Group,
  List,
  Modal,
  NativeSelect,
  NumberInput,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useMemo, useState } from 'react';
import { api, environmentStore, unwrap } from '../../api/client';
import { personasQuery, phoneNumbersQuery } from '../../api/queries';
import { ErrorAlert } from '../../components/ui';
import { useStoredValue } from '../../store';
import { parseContactsCsv } from './contacts-csv';

const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The contacts' CSV, pasted or read from a file, checked as it changes. */
function ContactsField(props: { value: string; onChange(text: string): void }) {
  const parsed = useMemo(() => parseContactsCsv(props.value), [props.value]);
  const read = async (file: File | null) => props.onChange(file ? await file.text() : '');
  return (
    <Stack gap={4}>
      <FileInput
        label="Contacts file"
        description="A .csv file"
        accept=".csv,text/csv"
        onChange={read}
        clearable
      />
      <Textarea
        label="Contacts (CSV)"
        description='A header row with a "to" column (E.164); other columns become {{variables}}'
        placeholder={'to,name\n+14155552671,Sam'}
        autosize
        minRows={4}
        maxRows={10}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
        error={props.value && parsed.problems.length ? 'Fix the contacts below' : undefined}
      />
      {props.value && parsed.problems.length ? (
        <List size="sm" c="red" data-testid="contacts-problems">
          {parsed.problems.map((p) => (
            <List.Item key={p}>{p}</List.Item>
          ))}
        </List>
      ) : props.value ? (
        <Text size="sm" c="dimmed" data-testid="contacts-count">
          {parsed.contacts.length} contacts
        </Text>
      ) : null}
    </Stack>
  );
}

/** The retry plan: which outcomes are called again, how many attempts in all, and how long between. */
function RetryFields(props: { value: RetryPlan; onChange(plan: RetryPlan): void }) {
  const { value, onChange } = props;
  return (
    <Stack gap="xs">
      <Group>
        <Checkbox
          label="Retry busy"
          checked={value.onBusy}
          onChange={(e) => onChange({ ...value, onBusy: e.currentTarget.checked })}
        />
        <Checkbox
          label="Retry no answer"
          checked={value.onNoAnswer}
          onChange={(e) => onChange({ ...value, onNoAnswer: e.currentTarget.checked })}
        />
        <Checkbox
          label="Retry voicemail"
          checked={value.onVoicemail}
          onChange={(e) => onChange({ ...value, onVoicemail: e.currentTarget.checked })}
        />
      </Group>
      <SimpleGrid cols={2}>
        <NumberInput
          label="Attempts per contact"
          min={1}
          max={10}
          value={value.maxAttempts}
          onChange={(n) => onChange({ ...value, maxAttempts: Number(n) || 1 })}
        />
        <NumberInput
          label="Minutes between attempts"
          min={0}
          max={10_080}
          value={value.delayMinutes}
          onChange={(n) => onChange({ ...value, delayMinutes: Number(n) || 0 })}
        />
      </SimpleGrid>
    </Stack>
  );
}

interface RetryPlan {
  onBusy: boolean;
  onNoAnswer: boolean;
  onVoicemail: boolean;
  maxAttempts: number;
  delayMinutes: number;
}

const DEFAULT_RETRY: RetryPlan = {
  onBusy: true,
  onNoAnswer: true,
  onVoicemail: false,
  maxAttempts: 2,
  delayMinutes: 60,
};

/**
 * "New campaign": a name, the number it calls from, the persona that speaks, the contacts (a CSV,
 * checked as you type or upload), how many at once, the calling hours and the retry plan; then
 * POST /campaigns, and the campaign's page.
 */
export function NewCampaignDialog(props: { opened: boolean; onClose(): void; onCreated(id: string): void }) {
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const numbers = useQuery({ ...phoneNumbersQuery(environment), enabled: props.opened });
  const personas = useQuery({ ...personasQuery(), enabled: props.opened });
  const [name, setName] = useState('');
  const [from, setFrom] = useState('');
  const [personaId, setPersonaId] = useState('');
  const [csv, setCsv] = useState('');
  const [concurrency, setConcurrency] = useState(5);
  const [hours, setHours] = useState({ start: '09:00', end: '17:00', timezone: browserTimeZone() });
  const [retry, setRetry] = useState(DEFAULT_RETRY);
  const phoneNumberId = from || numbers.data?.[0]?.id || '';
  const persona = personaId || numbers.data?.find((n) => n.id === phoneNumberId)?.personaId || '';
  const parsed = useMemo(() => parseContactsCsv(csv), [csv]);
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v2/developers/campaigns', {
          body: {
            name,
            phoneNumberId,
            personaId: persona,
            contacts: parsed.contacts,
            concurrency,
            callingHours: hours,
            retry,
          },
        }),
      ).data,
    onSuccess: (campaign) => {
      void queryClient.invalidateQueries({ queryKey: ['campaigns'] });
      props.onCreated(campaign.id);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const ready = Boolean(name.trim() && phoneNumberId && persona && csv && parsed.problems.length === 0);
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="New campaign" size="xl">
      <form onSubmit={submit}>
        <Stack>
          {numbers.data?.length === 0 ? (
            <Alert color="yellow" role="status">
              No phone numbers in the {environment} environment: add one on the Phone numbers page first.
            </Alert>
          ) : null}
          <TextInput
            label="Name"
            required
            maxLength={200}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <NativeSelect
              label="From"
              required
              value={phoneNumberId}
              onChange={(e) => setFrom(e.currentTarget.value)}
              data={(numbers.data ?? []).map((n) => ({
                value: n.id,
                label: `${n.number}${n.name ? ` (${n.name})` : ''}`,
              }))}
            />
            <NativeSelect
              label="Persona"
              required
              value={persona}
              onChange={(e) => setPersonaId(e.currentTarget.value)}
              data={[
                { value: '', label: 'Pick a persona' },
                ...(personas.data ?? []).map((p) => ({ value: p.id, label: p.name })),
              ]}
            />
          </SimpleGrid>
          <ContactsField value={csv} onChange={setCsv} />
          <SimpleGrid cols={{ base: 2, sm: 4 }}>
            <NumberInput
              label="Calls at once"
              min={1}
              max={50}
              value={concurrency}
              onChange={(n) => setConcurrency(Number(n) || 1)}
            />
            <TextInput
              label="Calling from"
              description="HH:MM"
              value={hours.start}
              onChange={(e) => setHours({ ...hours, start: e.currentTarget.value })}
            />
            <TextInput
              label="Calling until"
              description="HH:MM"
              value={hours.end}
              onChange={(e) => setHours({ ...hours, end: e.currentTarget.value })}
            />
            <TextInput
              label="Time zone"
              description="IANA"
              value={hours.timezone}
              onChange={(e) => setHours({ ...hours, timezone: e.currentTarget.value })}
            />
          </SimpleGrid>
          <RetryFields value={retry} onChange={setRetry} />
          <ErrorAlert error={create.error} title="The campaign was not created" />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Close
            </Button>
            <Button type="submit" loading={create.isPending} disabled={!ready}>
              Start campaign
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
