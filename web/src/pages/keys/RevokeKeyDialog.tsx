import { Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ui';

type ApiKey = components['schemas']['ApiKey'];

/** "Revoke this key?": confirms, revokes, refreshes the list. */
export function RevokeKeyDialog({ revoking, onClose }: { revoking: ApiKey | null; onClose(): void }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.DELETE('/api/v1/developers/keys/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      onClose();
      queryClient.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  return (
    <Modal opened={revoking !== null} onClose={onClose} title="Revoke this key?">
      {revoking ? (
        <Stack>
          <Text>
            <strong>{revoking.name}</strong> (<Code>{revoking.prefix}</Code>) stops working on its next
            request. This cannot be undone.
          </Text>
          <ErrorAlert error={revoke.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button color="red.8" loading={revoke.isPending} onClick={() => revoke.mutate(revoking.id)}>
              Revoke key
            </Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}
