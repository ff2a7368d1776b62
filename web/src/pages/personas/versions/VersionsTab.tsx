import { Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { components } from '../../../api/schema';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { type Column, DataTable } from '../../../components/DataTable';
import { ListBody } from '../../../components/ListPage';
import { ErrorAlert, formatTime, GOOD } from '../../../components/ui';
import { type PersonaVersion, usePersonaVersions } from './usePersonaVersions';
import { VersionDiff } from './VersionDiff';

type Persona = components['schemas']['Persona'];

/** Whether the persona's working copy is its live version, so that a revision can be opened. */
const revisable = (p: Persona) => p.status === 'published' && p.liveVersion !== null;

function ReviseNotice({ persona, busy, onRevise }: { persona: Persona; busy: boolean; onRevise(): void }) {
  if (persona.liveVersion === null) {
    return (
      <Text size="sm" c="dimmed" mb="sm">
        No version is live: new versions come from approved submissions.
      </Text>
    );
  }
  return (
    <Group justify="space-between" align="center" mb="sm" gap="sm">
      <Text size="sm">
        Version {persona.liveVersion} is live: sessions on live keys run it.
        {revisable(persona)
          ? ' Revise to edit a draft of it while it keeps serving; approving the draft makes it the next version.'
          : persona.status === 'submitted'
            ? ' A revision is under review.'
            : ' A revision is open: edit and submit the draft.'}
      </Text>
      {revisable(persona) ? (
        <Button onClick={onRevise} loading={busy}>
          Revise
        </Button>
      ) : null}
    </Group>
  );
}

/**
 * A persona's versions: each approval (newest first), when it was approved and which one is live;
 * the difference between any two; rolling back to an earlier one (asked first); and a revision of
 * the published persona opened as a draft while its live version keeps serving.
 */
export function VersionsTab({ persona }: { persona: Persona }) {
  const { versions, rollback, revise } = usePersonaVersions(persona.id, persona.liveVersion);
  // the version asked about stays named while the dialog fades out
  const [target, setTarget] = useState(0);
  const [confirming, setConfirming] = useState(false);
  const columns: Column<PersonaVersion>[] = [
    { header: 'Version', cell: (v) => v.version },
    { header: 'Approved', cell: (v) => formatTime(v.approvedAt) },
    {
      header: 'Live',
      cell: (v) =>
        v.live ? (
          <Badge variant="outline" color={GOOD} data-testid="live-version">
            live
          </Badge>
        ) : null,
    },
    {
      header: 'Actions',
      cell: (v) =>
        v.live || persona.liveVersion === null ? null : (
          <Button
            size="xs"
            variant="default"
            onClick={() => {
              setTarget(v.version);
              setConfirming(true);
            }}
          >
            Roll back to this version
          </Button>
        ),
    },
  ];
  return (
    <Stack gap="md">
      <ReviseNotice persona={persona} busy={revise.isPending} onRevise={() => revise.mutate()} />
      <ErrorAlert error={revise.error} title="The revision did not open" />
      <section aria-labelledby="versions-heading">
        <Title order={2} size="h4" id="versions-heading" mb="xs">
          Approved versions
        </Title>
        <ListBody
          items={versions.data?.versions}
          pending={versions.isPending}
          error={versions.error}
          empty="No approved version yet: each approval of a submission freezes the manifest as the next version."
        >
          {(rows) => (
            <DataTable
              label="Versions"
              minWidth={520}
              rows={rows}
              columns={columns}
              rowKey={(v) => v.version}
              rowProps={(v) => ({ 'data-testid': `version-${v.version}` })}
            />
          )}
        </ListBody>
      </section>
      {versions.data ? (
        <VersionDiff key={persona.id} personaId={persona.id} versions={versions.data.versions} />
      ) : null}
      <ConfirmDialog
        opened={confirming}
        title={`Roll back to version ${target}?`}
        confirmLabel="Roll back"
        action={() => rollback.mutateAsync(target)}
        onClose={() => setConfirming(false)}
        onDone={() => setConfirming(false)}
      >
        Version {target} goes live at once in place of version {persona.liveVersion}: new sessions on live
        keys run it, sessions under way keep the version they started with. The draft you edit does not
        change.
      </ConfirmDialog>
    </Stack>
  );
}
