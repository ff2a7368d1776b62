import { Button, Group, Modal, NativeSelect, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';
import { type HeaderRow, HeaderRows, headersObject } from './HeaderRows';
import { OAuthTokenSelect } from './OAuthTokenSelect';

/** "Register an MCP server": name, endpoint, transport, headers (secrets allowed), an OAuth connection. */
export function RegisterMcpServerDialog(props: {
  opened: boolean;
  onClose(): void;
  onCreated(id: string): void;
}) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [endpoint, setEndpoint] = useState('');
  const [transport, setTransport] = useState<'http' | 'sse'>('http');
  const [headers, setHeaders] = useState<HeaderRow[]>([]);
  const [oauthTokenId, setOauthTokenId] = useState('');
  const [autoConnect, setAutoConnect] = useState(true);
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v2/developers/mcp-servers', {
          body: {
            name,
            description: description || undefined,
            endpoint,
            transport,
            autoConnect,
            headers: headersObject(headers),
            oauthTokenId: oauthTokenId || undefined,
          },
        }),
      ).data,
    onSuccess: (server) => {
      setName('');
      setDescription('');
      setEndpoint('');
      setHeaders([]);
      setOauthTokenId('');
      create.reset();
      props.onCreated(server.id);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Register an MCP server" size="lg">
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
            label="Endpoint URL"
            required
            type="url"
            placeholder="https://mcp.example.com/mcp"
            value={endpoint}
            onChange={(e) => setEndpoint(e.currentTarget.value)}
          />
          <NativeSelect
            label="Transport"
            value={transport}
            onChange={(e) => setTransport(e.currentTarget.value as 'http' | 'sse')}
            data={[
              { value: 'http', label: 'Streamable HTTP (current MCP)' },
              { value: 'sse', label: 'HTTP + SSE (older servers)' },
            ]}
          />
          <Textarea
            label="Description"
            autosize
            minRows={1}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
          />
          <HeaderRows rows={headers} onChange={setHeaders} />
          <OAuthTokenSelect value={oauthTokenId} onChange={setOauthTokenId} />
          <Switch
            label="Connect and discover its tools now"
            checked={autoConnect}
            onChange={(e) => setAutoConnect(e.currentTarget.checked)}
          />
          <ErrorAlert error={create.error} title="The server was not registered" />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Register server
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
