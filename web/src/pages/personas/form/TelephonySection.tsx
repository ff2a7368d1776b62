import {
  ActionIcon,
  Button,
  Fieldset,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useContext } from 'react';
import { PersonaFormContext, useField } from './FormContext';
import { LongTextField, TextField } from './fields';
import { asNumber, asText } from './manifestPaths';

const DESTINATIONS = 'telephony.transferDestinations';
const MAX_DESTINATIONS = 20;

interface Destination {
  destination: string;
  name: string;
  description: string;
}

/** The draft's destinations, read defensively (the JSON tab may hold anything). */
function destinationsOf(value: unknown): Destination[] {
  if (!Array.isArray(value)) return [];
  return value.map((d) => ({
    destination: asText(d?.destination),
    name: asText(d?.name),
    description: asText(d?.description),
  }));
}

/** telephony.keypad: the key that ends an entry, and the pause that ends one without it. */
function KeypadFields() {
  const terminator = useField('telephony.keypad.terminator');
  const timeout = useField('telephony.keypad.timeoutMs');
  const current = terminator.value === null ? 'none' : asText(terminator.value);
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
      <Select
        id={terminator.id}
        label="Keypad: end of entry"
        description="The key that ends what the caller types (default #)"
        data={[
          { value: '#', label: '# (pound)' },
          { value: '*', label: '* (star)' },
          { value: 'none', label: 'None: only the pause' },
        ]}
        value={current || null}
        onChange={(next) => terminator.set(next === null ? undefined : next === 'none' ? null : next)}
        onBlur={terminator.touch}
        error={terminator.error}
        disabled={terminator.disabled}
        clearable
      />
      <NumberInput
        id={timeout.id}
        label="Keypad: pause that ends an entry (ms)"
        description="500–10 000; default 2 000"
        value={asNumber(timeout.value) ?? ''}
        onChange={(next) => timeout.set(next === '' ? undefined : Number(next))}
        onBlur={timeout.touch}
        min={500}
        max={10_000}
        step={250}
        allowDecimal={false}
        allowNegative={false}
        thousandSeparator=" "
        error={timeout.error}
        disabled={timeout.disabled}
      />
    </SimpleGrid>
  );
}

/** telephony.transferDestinations: where the agent may transfer a call, each with what the model reads. */
function TransferDestinations() {
  const field = useField(DESTINATIONS);
  const form = useContext(PersonaFormContext);
  const rows = destinationsOf(field.value);
  const errorOf = (i: number, key: keyof Destination) => {
    const path = `${DESTINATIONS}.${i}.${key}`;
    const shown = form?.shown === 'all' || form?.shown.has(DESTINATIONS);
    return shown ? form?.problems.get(path)?.join('; ') : undefined;
  };
  const change = (i: number, key: keyof Destination, value: string) =>
    field.set(rows.map((row, j) => (j === i ? { ...row, [key]: value } : row)));
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>
        Transfer destinations
      </Text>
      <Text size="xs" c="dimmed">
        A number (+14155550100), a SIP address (sip:desk@pbx.example.com) or another persona's id (persona_…:
        a handoff). The agent may transfer only to these; it reads each name and description.
      </Text>
      {rows.map((row, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a row is a place in the manifest's list, which has no ids
        <Group key={`destination-${i}`} align="flex-start" gap="xs" wrap="nowrap">
          <TextInput
            aria-label={`Destination ${i + 1}`}
            placeholder="+14155550100"
            value={row.destination}
            onChange={(e) => change(i, 'destination', e.currentTarget.value)}
            onBlur={field.touch}
            error={errorOf(i, 'destination')}
            disabled={field.disabled}
          />
          <TextInput
            aria-label={`Destination ${i + 1} name`}
            placeholder="Billing desk"
            value={row.name}
            onChange={(e) => change(i, 'name', e.currentTarget.value)}
            onBlur={field.touch}
            error={errorOf(i, 'name')}
            disabled={field.disabled}
          />
          <TextInput
            aria-label={`Destination ${i + 1} description`}
            placeholder="Invoices, refunds and payments"
            style={{ flex: 1 }}
            value={row.description}
            onChange={(e) => change(i, 'description', e.currentTarget.value)}
            onBlur={field.touch}
            error={errorOf(i, 'description')}
            disabled={field.disabled}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={`Remove destination ${i + 1}`}
            onClick={() => field.set(rows.filter((_, j) => j !== i))}
            disabled={field.disabled}
          >
            ×
          </ActionIcon>
        </Group>
      ))}
      <Group>
        <Button
          variant="light"
          size="xs"
          onClick={() => field.set([...rows, { destination: '', name: '', description: '' }])}
          disabled={field.disabled || rows.length >= MAX_DESTINATIONS}
        >
          Add a destination
        </Button>
      </Group>
      {field.error ? (
        <Text size="xs" c="red">
          {field.error}
        </Text>
      ) : null}
    </Stack>
  );
}

/** telephony.maxDurationS: how long the agent's calls may last after the answer. */
function MaxDurationField() {
  const field = useField('telephony.maxDurationS');
  return (
    <NumberInput
      id={field.id}
      label="Max call duration (seconds)"
      description="The agent says a closing line and hangs up this long after the answer: 10–14 400; default 600. A call placed with its own maxDurationS keeps that."
      value={asNumber(field.value) ?? ''}
      onChange={(next) => field.set(next === '' ? undefined : Number(next))}
      onBlur={field.touch}
      min={10}
      max={14_400}
      step={60}
      allowDecimal={false}
      allowNegative={false}
      thousandSeparator=" "
      error={field.error}
      disabled={field.disabled}
    />
  );
}

/** telephony: the agent on a phone line (docs/telephony.md "In-call controls"). */
export function TelephonySection() {
  return (
    <Fieldset legend="Telephony">
      <Stack gap="sm">
        <MaxDurationField />
        <TransferDestinations />
        <KeypadFields />
        <TextField
          path="telephony.closingLine"
          label="Closing line"
          rule="What the agent says when it hangs up without a goodbye of its own; at most 500 characters"
          max={500}
        />
        <LongTextField
          path="telephony.voicemailMessage"
          label="Voicemail message"
          rule="Left after an answering machine's beep on an outbound call ({{name}} filled from the call's variables); at most 1 000 characters"
          max={1000}
          minRows={2}
        />
      </Stack>
    </Fieldset>
  );
}
