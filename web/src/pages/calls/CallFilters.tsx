import { Button, Group, NativeSelect } from '@mantine/core';
import type { components } from '../../api/schema';

type CallStatus = components['schemas']['Call']['status'];
type CallDirection = components['schemas']['Call']['direction'];

/** What the calls list is narrowed to; empty strings mean "any". */
export interface CallFilterValues {
  direction: CallDirection | '';
  status: CallStatus | '';
  phoneNumberId: string;
}

export const NO_CALL_FILTERS: CallFilterValues = { direction: '', status: '', phoneNumberId: '' };

const STATUSES: CallStatus[] = [
  'queued',
  'ringing',
  'in-progress',
  'completed',
  'busy',
  'no-answer',
  'failed',
  'canceled',
];

/** The filters as the list's query (GET /calls `direction`, `status`, `phoneNumberId`). */
export const callsQuery = (f: CallFilterValues) => ({
  direction: f.direction || undefined,
  status: f.status || undefined,
  phoneNumberId: f.phoneNumberId || undefined,
});

/** The calls list's filters: direction, status and the account's number. */
export function CallFilters(props: {
  value: CallFilterValues;
  onChange(next: CallFilterValues): void;
  numbers: { id: string; label: string }[];
}) {
  const { value, onChange } = props;
  const set = (patch: Partial<CallFilterValues>) => onChange({ ...value, ...patch });
  const filtered = JSON.stringify(value) !== JSON.stringify(NO_CALL_FILTERS);
  return (
    <Group gap="sm" align="flex-end" mb="sm" wrap="wrap" role="search" aria-label="Filter calls">
      <NativeSelect
        size="xs"
        label="Direction"
        value={value.direction}
        onChange={(e) => set({ direction: e.currentTarget.value as CallDirection | '' })}
        data={[
          { value: '', label: 'Both' },
          { value: 'inbound', label: 'Inbound' },
          { value: 'outbound', label: 'Outbound' },
        ]}
      />
      <NativeSelect
        size="xs"
        label="Status"
        value={value.status}
        onChange={(e) => set({ status: e.currentTarget.value as CallStatus | '' })}
        data={[{ value: '', label: 'Any status' }, ...STATUSES]}
      />
      <NativeSelect
        size="xs"
        label="Number"
        value={value.phoneNumberId}
        onChange={(e) => set({ phoneNumberId: e.currentTarget.value })}
        data={[
          { value: '', label: 'Any number' },
          ...props.numbers.map((n) => ({ value: n.id, label: n.label })),
        ]}
      />
      {filtered ? (
        <Button size="xs" variant="subtle" onClick={() => onChange(NO_CALL_FILTERS)}>
          Clear filters
        </Button>
      ) : null}
    </Group>
  );
}
