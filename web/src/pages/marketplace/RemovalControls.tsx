import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorAlert, formatNumber, formatTime, WARN } from '../../components/ui';
import type { PublishedItem } from './usePublishedItem';

/** Remove (after confirming) or, during the grace period, restore; the API's answer is said. */
export function RemovalControls({ item }: { item: PublishedItem }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const path = { params: { path: { id: item.id } } };
  const remove = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/marketplace/publisher/{id}', path)),
    onSuccess: () => {
      setConfirming(false);
      return queryClient.invalidateQueries({ queryKey: ['marketplace'] });
    },
  });
  const restore = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/marketplace/publisher/{id}/restore', path)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['marketplace'] }),
  });
  const said = (item.status === 'removal_scheduled' ? remove.data?.message : restore.data?.message) ?? null;
  return (
    <Stack gap="xs">
      <ErrorAlert error={remove.error ?? restore.error} title="Not done" />
      {said ? (
        <Text size="sm" role="status">
          {said}
        </Text>
      ) : null}
      {item.status === 'removal_scheduled' ? (
        <>
          <Text size="sm" c={WARN} fw={700}>
            Scheduled for removal: out of browse, no new installs. Existing installations keep working until{' '}
            {formatTime(item.removesAt)}.
          </Text>
          <Group>
            <Button variant="outline" onClick={() => restore.mutate()} loading={restore.isPending}>
              Restore
            </Button>
          </Group>
        </>
      ) : item.status !== 'removed' ? (
        <Group>
          <Button variant="outline" color="red.8" onClick={() => setConfirming(true)}>
            Remove from the marketplace
          </Button>
        </Group>
      ) : (
        <Text size="sm">Removed: its installations ended and running it answers 410.</Text>
      )}
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={`Remove ${item.name}?`}>
        <Stack>
          <Text size="sm">
            It leaves browse at once and takes no new installs. Its {formatNumber(item.activeInstalls)} active
            installations keep working for 30 days; you can restore it until then.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button color="red.8" onClick={() => remove.mutate()} loading={remove.isPending}>
              Remove
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
