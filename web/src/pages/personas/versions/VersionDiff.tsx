import { Badge, Code, Group, NativeSelect, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { type Column, DataTable } from '../../../components/DataTable';
import { Empty, ErrorAlert, PageLoader } from '../../../components/ui';
import { type ChangeRow, changeRows, OP_WORDS } from './patchText';
import { type PersonaVersion, useVersionDiff } from './usePersonaVersions';

const value = (text: string) => (
  <Code style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{text}</Code>
);

const COLUMNS: Column<ChangeRow>[] = [
  {
    header: 'Change',
    cell: (r) => (
      <Badge variant="outline" color={r.op === 'remove' ? 'red.9' : 'gray.8'} data-op={r.op}>
        {OP_WORDS[r.op]}
      </Badge>
    ),
  },
  { header: 'Field', cell: (r) => <Code>{r.path}</Code>, style: { overflowWrap: 'anywhere' } },
  { header: 'Before', cell: (r) => value(r.before) },
  { header: 'After', cell: (r) => value(r.after) },
];

/**
 * The difference between any two versions: pick the one to start from and the one to compare it
 * with (by default the one before the newest and the newest); each change of the JSON Patch as a
 * row with its field and its value before and after.
 */
export function VersionDiff({ personaId, versions }: { personaId: string; versions: PersonaVersion[] }) {
  const [from, setFrom] = useState<number | null>(versions[1]?.version ?? null);
  const [to, setTo] = useState<number | null>(versions[0]?.version ?? null);
  const diff = useVersionDiff(personaId, from, to);
  if (versions.length < 2) {
    return <Empty>One version so far: the next approval gives you two to compare.</Empty>;
  }
  const options = versions.map((v) => ({ value: String(v.version), label: `Version ${v.version}` }));
  const fromManifest = versions.find((v) => v.version === from)?.manifest;
  const rows = diff.data ? changeRows(diff.data.patch, fromManifest) : [];
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        Compare versions
      </Title>
      <Group gap="sm" align="flex-end">
        <NativeSelect
          label="From version"
          data={options}
          value={String(from)}
          onChange={(e) => setFrom(Number(e.currentTarget.value))}
        />
        <NativeSelect
          label="To version"
          data={options}
          value={String(to)}
          onChange={(e) => setTo(Number(e.currentTarget.value))}
        />
      </Group>
      <ErrorAlert error={diff.error} title="The difference did not load" />
      {diff.isPending ? <PageLoader /> : null}
      {diff.data && rows.length === 0 ? (
        <Text c="dimmed" role="status">
          Versions {from} and {to} have the same manifest.
        </Text>
      ) : null}
      {rows.length > 0 ? (
        <>
          <Text size="sm" role="status">
            {rows.length} {rows.length === 1 ? 'change' : 'changes'} from version {from} to version {to}
          </Text>
          <DataTable
            label={`Changes from version ${from} to version ${to}`}
            minWidth={640}
            rows={rows}
            columns={COLUMNS}
            rowKey={(r) => r.index}
          />
        </>
      ) : null}
    </Stack>
  );
}
