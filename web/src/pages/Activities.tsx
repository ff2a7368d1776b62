import { Stack, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { environmentStore } from '../api/client';
import { PageHeader } from '../components/ui';
import { useStoredValue } from '../store';
import { ActivityFilterBar } from './activities/ActivityFilterBar';
import { ActivityLog } from './activities/ActivityLog';
import { ActivityStats } from './activities/ActivityStats';
import { type ActivityFilters, NO_FILTERS } from './activities/filters';

/** Activities: the events your code logs about its users, filtered, counted and charted. */
export default function ActivitiesPage() {
  const environment = useStoredValue(environmentStore);
  const [filters, setFilters] = useState<ActivityFilters>(NO_FILTERS);
  const [applied] = useDebouncedValue(filters, 400);
  return (
    <>
      <PageHeader
        title="Activities"
        description={`Events your code logs about its users (POST /activities), which sessions read as the caller's context (${environment} environment).`}
      />
      <ActivityFilterBar value={filters} onChange={setFilters} />
      <Stack gap="xl">
        <ActivityStats filters={applied} />
        <section aria-labelledby="activity-log-heading">
          <Title order={2} size="h3" id="activity-log-heading" mb="sm">
            Log
          </Title>
          <ActivityLog filters={applied} />
        </section>
      </Stack>
    </>
  );
}
