import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';

/** A persona's default identity.id: its name in lower case, with dashes. */
const slugify = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);

/** "New persona": a name and slug make a draft, then the persona's page opens. */
export function NewPersonaDialog({ opened, onClose }: { opened: boolean; onClose(): void }) {
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
