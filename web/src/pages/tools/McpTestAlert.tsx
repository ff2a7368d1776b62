import { Alert } from '@mantine/core';
import type { components } from '../../api/schema';

type McpTest = components['schemas']['McpServerTest'];

/** The outcome of "Test connection": connected (latency, server, tool count) or the error. */
export function McpTestAlert({ result }: { result: McpTest }) {
  const info = result.serverInfo as { name?: unknown; version?: unknown } | undefined;
  const server = info?.name ? ` · ${String(info.name)}${info.version ? ` ${String(info.version)}` : ''}` : '';
  return (
    <Alert
      color={result.connected ? 'green' : 'red'}
      role="status"
      mb="md"
      title={result.connected ? 'Connected' : 'Not connected'}
      data-testid="mcp-test-result"
    >
      {result.connected
        ? `In ${result.latencyMs} ms${server} · ${result.toolCount ?? 0} tools`
        : `${result.error ?? 'The server did not answer'} (after ${result.latencyMs} ms)`}
    </Alert>
  );
}
