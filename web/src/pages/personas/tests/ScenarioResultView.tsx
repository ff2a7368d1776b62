import { Alert, Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import { DataTable } from '../../../components/DataTable';
import { GOOD, ScrollTable } from '../../../components/ui';
import { expectationText } from './expectationText';
import type { ScenarioResult } from './useAgentTests';

type Verdict = ScenarioResult['verdicts'][number];
type TranscriptTurn = ScenarioResult['transcript'][number];

const ms = (value: number | null) => (value === null ? '—' : `${value} ms`);

/** Pass or fail, said in words (not only in colour). */
function PassFail({ passed }: { passed: boolean }) {
  return (
    <Badge variant="outline" color={passed ? GOOD : 'red.9'} data-verdict={passed ? 'pass' : 'fail'}>
      {passed ? 'pass' : 'fail'}
    </Badge>
  );
}

/** Each expectation's verdict and the reason given for it. */
function Verdicts({ result }: { result: ScenarioResult }) {
  if (!result.verdicts.length) return <Text size="sm">No expectation was checked.</Text>;
  return (
    <DataTable<Verdict>
      label={`Verdicts of ${result.name}`}
      rows={result.verdicts}
      rowKey={(v) => `${v.turn ?? 'c'}-${expectationText(v.expectation)}-${v.reason}`}
      rowProps={(v) => ({ 'data-testid': 'verdict', 'data-passed': String(v.passed) })}
      minWidth={560}
      columns={[
        { header: 'Turn', cell: (v) => (v.turn === null ? 'conversation' : v.turn) },
        {
          header: 'Expectation',
          cell: (v) => expectationText(v.expectation),
          style: { overflowWrap: 'anywhere' },
        },
        { header: 'Verdict', cell: (v) => <PassFail passed={v.passed} /> },
        { header: 'Reason', cell: (v) => v.reason, style: { overflowWrap: 'anywhere' } },
      ]}
    />
  );
}

/** The tools a turn called: arguments, success, and whether a mock answered. */
function ToolCalls({ turn }: { turn: TranscriptTurn }) {
  if (!turn.toolCalls.length) return null;
  return (
    <Stack gap={2}>
      {turn.toolCalls.map((call, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: calls are listed in the order made
        <Text key={i} size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
          {call.name}({JSON.stringify(call.arguments)}) · {call.success ? 'ok' : 'failed'}
          {call.mocked ? ' · mocked' : ''}
        </Text>
      ))}
    </Stack>
  );
}

/** The conversation as it went: each turn's caller text, the agent's reply, route, tools and latency. */
function Transcript({ result }: { result: ScenarioResult }) {
  if (!result.transcript.length) return <Text size="sm">No turn was taken.</Text>;
  return (
    <ScrollTable minWidth={560}>
      <Table aria-label={`Transcript of ${result.name}`} data-testid="transcript">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>#</Table.Th>
            <Table.Th>Caller</Table.Th>
            <Table.Th>Agent</Table.Th>
            <Table.Th>Route</Table.Th>
            <Table.Th>Latency</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {result.transcript.map((turn, i) => (
            <Table.Tr key={turn.index}>
              <Table.Td>{i + 1}</Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{turn.text}</Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                <Stack gap={4}>
                  <Text size="sm">{turn.reply}</Text>
                  <ToolCalls turn={turn} />
                  {turn.error ? (
                    <Text size="xs" c="red.9">
                      {turn.error}
                    </Text>
                  ) : null}
                </Stack>
              </Table.Td>
              <Table.Td>{turn.route}</Table.Td>
              <Table.Td>{ms(turn.latencyMs)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollTable>
  );
}

/** One scenario's result in a run: verdicts, transcript, latencies, the error if it could not run. */
export function ScenarioResultView({ result }: { result: ScenarioResult }) {
  return (
    <Stack gap="sm">
      {result.error ? (
        <Alert color="red" title="The scenario could not run">
          {result.error}
        </Alert>
      ) : null}
      <Group gap="lg">
        <Text size="sm">
          Latency: median {ms(result.latencies.p50Ms)}, slowest {ms(result.latencies.maxMs)}
        </Text>
        {result.sessionId ? (
          <Text size="sm" c="dimmed">
            Session {result.sessionId} (test environment)
          </Text>
        ) : null}
      </Group>
      <Title order={4} size="h6">
        Expectations
      </Title>
      <Verdicts result={result} />
      <Title order={4} size="h6">
        Transcript
      </Title>
      <Transcript result={result} />
    </Stack>
  );
}
