import { Alert, Anchor, Button, Group, Modal, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { api, environmentStore, unwrap } from '../../api/client';
import { phoneNumbersQuery } from '../../api/queries';
import { ErrorAlert } from '../../components/ui';
import { useStoredValue } from '../../store';

/** Said when the environment has no number to call from. */
function NoNumbers({ environment }: { environment: string }) {
  return (
    <Alert color="yellow" role="status">
      No phone numbers in the {environment} environment:{' '}
      <Anchor component={Link} to="/phone-numbers">
        add one
      </Anchor>{' '}
      first.
    </Alert>
  );
}

/** The call just placed, with a link to its page. */
function CallPlaced({ call }: { call: { id: string; status: string } }) {
  return (
    <Alert color="blue" role="status" data-testid="call-placed">
      Call placed ({call.status}).{' '}
      <Anchor component={Link} to={`/calls/${call.id}`}>
        Open the call
      </Anchor>
    </Alert>
  );
}

/**
 * "Call a number" from a persona's page: an outbound test call (`POST /calls` with the persona) from
 * one of the environment's numbers to the number typed; then a link to the call's page.
 */
export function PlaceCallDialog(props: {
  personaId: string;
  personaName: string;
  opened: boolean;
  onClose(): void;
}) {
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const numbers = useQuery({ ...phoneNumbersQuery(environment), enabled: props.opened });
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const phoneNumberId = from || numbers.data?.[0]?.id || '';
  const place = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v2/developers/calls', {
          body: { phoneNumberId, to: to.trim(), personaId: props.personaId },
        }),
      ).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['calls'] }),
  });
  const close = () => {
    place.reset();
    props.onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    place.mutate();
  };
  return (
    <Modal opened={props.opened} onClose={close} title={`Call a number with ${props.personaName}`} size="lg">
      <form onSubmit={submit}>
        <Stack>
          <Text size="sm">
            The persona calls the number from one of your {environment} numbers and speaks as it would on any
            call.
          </Text>
          {numbers.data?.length === 0 ? <NoNumbers environment={environment} /> : null}
          <NativeSelect
            label="From"
            required
            value={phoneNumberId}
            onChange={(e) => setFrom(e.currentTarget.value)}
            data={(numbers.data ?? []).map((n) => ({
              value: n.id,
              label: `${n.number}${n.name ? ` (${n.name})` : ''} · ${n.provider}`,
            }))}
          />
          <TextInput
            label="To"
            description="E.164, in a country your account may call (by default the calling number's)"
            placeholder="+14155552671"
            required
            value={to}
            onChange={(e) => setTo(e.currentTarget.value)}
          />
          <ErrorAlert error={place.error} title="The call was not placed" />
          {place.data ? <CallPlaced call={place.data} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Close
            </Button>
            <Button type="submit" loading={place.isPending} disabled={!phoneNumberId}>
              Place call
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
