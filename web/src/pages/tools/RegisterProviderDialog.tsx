import { Button, Code, Group, Modal, PasswordInput, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';
import { authorizeParams, consoleOAuthRedirectUri, scopeList } from './oauthRedirect';

const EMPTY = {
  name: '',
  authorizationUrl: '',
  tokenUrl: '',
  revocationUrl: '',
  clientId: '',
  clientSecret: '',
  scopes: '',
  params: '',
};

/** "Register an OAuth provider": its endpoints, the client's id and secret (write-only), default scopes. */
export function RegisterProviderDialog(props: { opened: boolean; onClose(): void; onCreated(): void }) {
  const [form, setForm] = useState(EMPTY);
  const field = (key: keyof typeof EMPTY) => ({
    value: form[key],
    onChange: (e: { currentTarget: { value: string } }) => {
      const value = e.currentTarget.value;
      setForm((f) => ({ ...f, [key]: value }));
    },
  });
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v2/developers/oauth/providers', {
          body: {
            name: form.name,
            authorizationUrl: form.authorizationUrl,
            tokenUrl: form.tokenUrl,
            revocationUrl: form.revocationUrl || undefined,
            clientId: form.clientId,
            clientSecret: form.clientSecret,
            scopes: scopeList(form.scopes),
            authorizeParams: authorizeParams(form.params),
          },
        }),
      ),
    onSuccess: () => {
      setForm(EMPTY);
      create.reset();
      props.onCreated();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Register an OAuth provider" size="lg">
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Name" required placeholder="Google Calendar" {...field('name')} data-autofocus />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Authorization URL" required type="url" {...field('authorizationUrl')} />
            <TextInput label="Token URL" required type="url" {...field('tokenUrl')} />
          </SimpleGrid>
          <TextInput
            label="Revocation URL"
            type="url"
            description="Optional: revoking a connection calls it too"
            {...field('revocationUrl')}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Client ID" required autoComplete="off" {...field('clientId')} />
            <PasswordInput
              label="Client secret"
              required
              autoComplete="off"
              description="Stored encrypted, never shown again"
              {...field('clientSecret')}
            />
          </SimpleGrid>
          <TextInput
            label="Scopes"
            description="Requested by default, separated by spaces or commas"
            placeholder="calendar.read offline_access"
            {...field('scopes')}
          />
          <TextInput
            label="Extra authorize parameters"
            description="As a query string"
            placeholder="access_type=offline&prompt=consent"
            {...field('params')}
          />
          <Text size="xs">
            Register this redirect URI with the provider: <Code>{consoleOAuthRedirectUri()}</Code>
          </Text>
          <ErrorAlert error={create.error} title="The provider was not registered" />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Register provider
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
