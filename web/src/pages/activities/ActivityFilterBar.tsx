import { Button, Group, TextInput } from '@mantine/core';
import { type ActivityFilters, NO_FILTERS } from './filters';

/** Type, user and UTC date range; the log and the statistics follow them. */
export function ActivityFilterBar(props: { value: ActivityFilters; onChange(value: ActivityFilters): void }) {
  const { value, onChange } = props;
  const field = (key: keyof ActivityFilters) => ({
    value: value[key],
    onChange: (e: { currentTarget: { value: string } }) =>
      onChange({ ...value, [key]: e.currentTarget.value }),
  });
  return (
    <Group gap="sm" align="flex-end" mb="md" role="search" aria-label="Filter activities">
      <TextInput label="Type" placeholder="order.placed" {...field('type')} style={{ flex: '1 1 160px' }} />
      <TextInput label="User" placeholder="user-8812" {...field('userId')} style={{ flex: '1 1 160px' }} />
      <TextInput label="From (UTC day)" type="date" {...field('from')} style={{ flex: '0 1 170px' }} />
      <TextInput label="To (UTC day)" type="date" {...field('to')} style={{ flex: '0 1 170px' }} />
      <Button variant="default" onClick={() => onChange(NO_FILTERS)}>
        Clear filters
      </Button>
    </Group>
  );
}
