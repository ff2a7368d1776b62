import { Code, Stack, Table, Text, Title } from '@mantine/core';
import type { components } from '../../api/schema';

type ReviewDetail = components['schemas']['ReviewDetail'];

/** A value at a dotted path of the manifest, as text (lists joined), or undefined. */
function at(manifest: Record<string, unknown>, path: string): string | undefined {
  let value: unknown = manifest;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  if (Array.isArray(value)) return value.length ? value.map(String).join(', ') : undefined;
  if (value === undefined || value === null || typeof value === 'object') return undefined;
  return String(value);
}

/** The fields a reviewer reads first, per kind; the whole manifest follows as JSON. */
const FACTS: Record<ReviewDetail['review']['kind'], [string, string][]> = {
  persona: [
    ['Name', 'identity.name'],
    ['Tagline', 'identity.tagline'],
    ['Description', 'identity.description'],
    ['Category', 'knowledge.category'],
    ['Voice', 'voice.voice_id'],
    ['Greetings', 'behaviors.greetings'],
    ['Out of scope', 'knowledge.out_of_scope_topics'],
  ],
  marketplace_item: [
    ['Name', 'name'],
    ['Version', 'version'],
    ['Publisher', 'publisher.name'],
    ['Summary', 'description.short'],
    ['Description', 'description.long'],
    ['Permissions', 'permissions'],
    ['Changelog', 'changelog'],
  ],
};

/** What was submitted: its main fields, then the whole manifest as JSON. */
export function SubmittedManifest({ detail }: { detail: ReviewDetail }) {
  const { manifest } = detail;
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        {detail.review.kind === 'persona' ? "The persona's manifest" : 'The marketplace item'}
      </Title>
      {manifest === null ? (
        <Text size="sm">The submission is gone (the persona was deleted).</Text>
      ) : (
        <>
          <Table aria-label="Submitted fields" variant="vertical" withTableBorder>
            <Table.Tbody>
              {FACTS[detail.review.kind].map(([label, path]) => (
                <Table.Tr key={path}>
                  <Table.Th w={140}>{label}</Table.Th>
                  <Table.Td style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-line' }}>
                    {at(manifest, path) ?? '—'}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Code
            block
            data-testid="submitted-manifest"
            tabIndex={0}
            style={{ maxHeight: 480, overflow: 'auto' }}
          >
            {JSON.stringify(manifest, null, 2)}
          </Code>
        </>
      )}
    </Stack>
  );
}
