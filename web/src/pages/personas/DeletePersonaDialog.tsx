import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ui';
import { clearStoredDraft } from './draftStore';
import { LEAVING_FOR_GOOD } from './LeaveGuard';

type Persona = components['schemas']['Persona'];

/** "Delete this persona?": confirms, deletes it (withdrawing its review), back to the list. */
export function DeletePersonaDialog(props: {
  id: string;
  persona: Persona;
  opened: boolean;
  onClose(): void;
}) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const p = props.persona;
  const remove = useMutation({
    mutationFn: async () =>
      unwrap(await api.DELETE('/api/v1/developers/personas/{id}', { params: { path: { id: props.id } } })),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ['personas'] });
      clearStoredDraft(props.id);
      navigate('/personas', { state: LEAVING_FOR_GOOD });
    },
  });
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Delete this persona?">
      <Stack>
        <Text>
          {p.name || p.id} is deleted for good{p.status === 'submitted' ? ' and its review withdrawn' : ''}.
        </Text>
        <ErrorAlert error={remove.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button color="red.8" onClick={() => remove.mutate()} loading={remove.isPending}>
            Delete persona
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
