import { Alert, Code } from '@mantine/core';
import type { components } from '../../api/schema';

type Result = components['schemas']['WebhookTestResult'];

/** The outcome of "Send test": delivered or not, the response, the delivery's id. */
export function TestResult({ result }: { result: Result }) {
  return (
    <Alert
      color={result.delivered ? 'green' : 'red'}
      role="status"
      mb="md"
      title={result.delivered ? 'Test delivered' : 'Test not delivered'}
      data-testid="test-result"
    >
      {result.statusCode !== null ? `HTTP ${result.statusCode}` : 'No response'}
      {result.latencyMs !== null ? ` in ${result.latencyMs} ms` : ''}
      {result.error ? ` · ${result.error}` : ''} · delivery <Code>{result.deliveryId}</Code>
    </Alert>
  );
}
