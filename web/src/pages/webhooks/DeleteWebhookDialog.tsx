import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';

/** "Delete this webhook?": confirms, deletes it with its log, back to the list. */
export function DeleteWebhookDialog(props: { id: string; name: string; opened: boolean; onClose(): void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { id } = props;
  const remove = useMutation({
    mutationFn: async () =>
      unwrap(await api.DELETE('/api/v2/developers/webhooks/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ['webhooks'] });
      navigate('/webhooks');
    },
  });
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Delete this webhook?">
      <Stack>
        <Text>{props.name} stops receiving events. Its delivery log is deleted with it.</Text>
        <ErrorAlert error={remove.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button color="red.8" onClick={() => remove.mutate()} loading={remove.isPending}>
            Delete webhook
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
