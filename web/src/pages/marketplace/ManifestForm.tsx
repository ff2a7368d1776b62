import { Alert, Button, Group, List, SegmentedControl, Stack, Text, Textarea } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { type Account, api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';
import { manifestTemplate, manifestText } from './manifestTemplates';
import { publishedItemPath } from './queries';
import type { ItemType } from './types';
import { useManifestValidation } from './useManifestValidation';

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function Problems({ items }: { items: string[] }) {
  return (
    <List size="sm">
      {items.map((item) => (
        <List.Item key={item} style={{ overflowWrap: 'anywhere' }}>
          {item}
        </List.Item>
      ))}
    </List>
  );
}

/** What the server says about the manifest as typed: it does not parse, its problems, or ready; and warnings. */
function Verdict({ check }: { check: ReturnType<typeof useManifestValidation> }) {
  const { jsonProblem, validation } = check;
  return (
    <Stack gap="xs" aria-live="polite" data-testid="manifest-verdict">
      <Text size="sm">{check.checking ? 'Checking…' : 'Checked against the marketplace rules.'}</Text>
      <ErrorAlert error={check.error} title="Could not check the manifest" />
      {jsonProblem ? (
        <Alert color="red" title="The JSON does not parse">
          {jsonProblem}
        </Alert>
      ) : validation && !validation.valid ? (
        <Alert color="red" title={count(validation.validationErrors.length, 'problem')}>
          <Problems items={validation.validationErrors} />
        </Alert>
      ) : validation?.valid ? (
        <Alert color="green" title="Ready to submit">
          Every marketplace rule passes.
        </Alert>
      ) : null}
      {!jsonProblem && validation?.warnings.length ? (
        <Alert color="yellow" title={count(validation.warnings.length, 'note')}>
          <Problems items={validation.warnings} />
        </Alert>
      ) : null}
    </Stack>
  );
}

/** What the form publishes: a new item of a type chosen in the form, or a new version of an item. */
export type PublishTarget =
  | { kind: 'new'; account: Account }
  | { kind: 'version'; itemId: string; type: ItemType };

/**
 * A manifest as JSON, checked by the server as you type; Submit sends it for review (a new item, or
 * a new version of one) and opens the item's page, which follows the review.
 */
export function ManifestForm({ target, initialText }: { target: PublishTarget; initialText: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [type, setType] = useState<ItemType>(target.kind === 'version' ? target.type : 'tool');
  const [text, setText] = useState(initialText);
  const itemId = target.kind === 'version' ? target.itemId : undefined;
  const check = useManifestValidation(type, text, itemId);
  const submit = useMutation({
    mutationFn: async (manifest: Record<string, unknown>) =>
      itemId
        ? unwrap(
            await api.PUT('/api/marketplace/publisher/{id}', {
              params: { path: { id: itemId } },
              body: { manifest },
            }),
          )
        : unwrap(await api.POST('/api/marketplace/publisher/submit', { body: { type, manifest } })),
    onSuccess: async (submitted) => {
      await queryClient.invalidateQueries({ queryKey: ['marketplace'] });
      navigate(publishedItemPath(submitted.itemId));
    },
  });
  const ready = !check.checking && check.validation?.valid === true && check.manifest !== null;
  return (
    <Stack gap="md">
      {target.kind === 'new' ? (
        <SegmentedControl
          aria-label="What to publish"
          value={type}
          onChange={(v) => {
            setType(v as ItemType);
            setText(manifestText(manifestTemplate(v as ItemType, target.account)));
          }}
          data={[
            { value: 'tool', label: 'A tool' },
            { value: 'agent', label: 'An agent' },
          ]}
          style={{ alignSelf: 'flex-start' }}
        />
      ) : null}
      <Textarea
        label="Manifest (JSON)"
        description="Checked against the marketplace rules as you type (docs: Marketplace manifests)."
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        autosize
        minRows={16}
        maxRows={36}
        spellCheck={false}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
      />
      <Verdict check={check} />
      <ErrorAlert error={submit.error} title="Not submitted" />
      <Group justify="flex-end">
        <Button
          onClick={() => check.manifest && submit.mutate(check.manifest)}
          disabled={!ready}
          loading={submit.isPending}
        >
          {itemId ? 'Submit the new version for review' : 'Submit for review'}
        </Button>
      </Group>
    </Stack>
  );
}
