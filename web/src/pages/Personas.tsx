import { Anchor, Button, Group, Modal, Stack, Table, TextInput } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import {
  Empty,
  ErrorAlert,
  formatTime,
  PageHeader,
  PageLoader,
  ScrollTable,
  StatusBadge,
} from '../components/ui';

/** Personas: the caller's list and a new draft. */
export default function PersonasPage() {
  const personas = useQuery({
    queryKey: ['personas'],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/personas')).personas,
  });
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Personas"
        description="Draft a persona's manifest, validate it, submit it for review; approved personas are published."
        actions={<Button onClick={() => setCreating(true)}>New persona</Button>}
      />
      <ErrorAlert error={personas.error} />
      {personas.isPending ? (
        <PageLoader />
      ) : personas.data?.length === 0 ? (
        <Empty>No personas yet.</Empty>
      ) : (
        <ScrollTable minWidth={560}>
          <Table striped highlightOnHover aria-label="Personas">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Category</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {personas.data?.map((p) => (
                <Table.Tr key={p.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/personas/${p.id}`}>
                      {p.name || p.id}
                    </Anchor>
                    {p.tagline ? (
                      <div style={{ fontSize: 'var(--mantine-font-size-sm)' }}>{p.tagline}</div>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={p.status} />
                  </Table.Td>
                  <Table.Td>{p.category || '—'}</Table.Td>
                  <Table.Td>{formatTime(p.updatedAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      <NewPersonaModal opened={creating} onClose={() => setCreating(false)} />
    </>
  );
}

const slugify = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);

function NewPersonaModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/developers/personas', {
          body: { manifest: { identity: { id: slug || slugify(name), name } } },
        }),
      ),
    onSuccess: (result) => navigate(`/personas/${result.persona.id}`),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Modal opened={opened} onClose={onClose} title="New persona">
      <form onSubmit={submit}>
        <Stack>
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            data-autofocus
          />
          <TextInput
            label="Slug"
            description="identity.id: unique among your personas"
            placeholder={slugify(name) || 'ava-support'}
            value={slug}
            onChange={(e) => setSlug(e.currentTarget.value)}
          />
          <ErrorAlert error={create.error} title="The persona was not created" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create draft
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
