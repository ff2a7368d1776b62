import { Anchor, Button } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { type Column, DataTable } from '../components/DataTable';
import { ListPage } from '../components/ListPage';
import { formatTime, StatusBadge } from '../components/ui';
import { NewPersonaDialog } from './personas/NewPersonaDialog';
import { useCreateFromTemplate } from './personas/useCreateFromTemplate';

type PersonaEntry = components['schemas']['PersonaListEntry'];

const COLUMNS: Column<PersonaEntry>[] = [
  {
    header: 'Name',
    cell: (p) => (
      <>
        <Anchor component={Link} to={`/personas/${p.id}`}>
          {p.name || p.id}
        </Anchor>
        {p.tagline ? <div style={{ fontSize: 'var(--mantine-font-size-sm)' }}>{p.tagline}</div> : null}
      </>
    ),
  },
  { header: 'Status', cell: (p) => <StatusBadge status={p.status} /> },
  { header: 'Category', cell: (p) => p.category || '—' },
  { header: 'Updated', cell: (p) => formatTime(p.updatedAt) },
];

/** Personas: the caller's list and a new draft. */
export default function PersonasPage() {
  const personas = useQuery({
    queryKey: ['personas'],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/personas')).personas,
  });
  const [creating, setCreating] = useState(false);
  const template = useCreateFromTemplate();
  return (
    <>
      <ListPage
        title="Personas"
        description="Draft a persona's manifest, validate it, submit it for review; approved personas are published."
        actions={
          <>
            <Button variant="default" onClick={() => template.mutate()} loading={template.isPending}>
              Create from a template
            </Button>
            <Button onClick={() => setCreating(true)}>New persona</Button>
          </>
        }
        items={personas.data}
        pending={personas.isPending}
        error={personas.error ?? template.error}
        empty="No personas yet."
      >
        {(rows) => (
          <DataTable
            label="Personas"
            minWidth={560}
            striped
            highlightOnHover
            rows={rows}
            columns={COLUMNS}
            rowKey={(p) => p.id}
          />
        )}
      </ListPage>
      <NewPersonaDialog opened={creating} onClose={() => setCreating(false)} />
    </>
  );
}
