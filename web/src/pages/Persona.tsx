import { Alert, Anchor, Box, Button, Grid } from '@mantine/core';
import { lazy, Suspense, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorAlert, formatTime, PageHeader, PageLoader, StatusBadge } from '../components/ui';
import { DeletePersonaDialog } from './personas/DeletePersonaDialog';
import { LeaveGuard } from './personas/LeaveGuard';
import { ManifestTabs } from './personas/ManifestTabs';
import { ReviewNotice } from './personas/ReviewNotice';
import { UnsavedDraftNotice } from './personas/UnsavedDraftNotice';
import { EDITABLE_STATUSES, useManifestEditor } from './personas/useManifestEditor';
import { usePersona } from './personas/usePersona';
import { ValidationPanel } from './personas/ValidationPanel';

// the call's audio and stream code loads when a call panel is first opened
const TestCallPanel = lazy(() => import('./test-call/TestCallPanel'));

/**
 * One persona: its manifest as a form or as JSON (two tabs, one draft) that saves the draft as you
 * type (after a pause) and validates it through the API, showing each error on its field and listing
 * every error and warning; a draft the server refuses stays in this browser until saved or
 * discarded, and leaving with unsaved changes asks first; submit, review notes, unpublish; a test
 * call with it (drafts too).
 */
export default function PersonaPage() {
  const { id = '' } = useParams();
  const [deleting, setDeleting] = useState(false);
  const [calling, setCalling] = useState(false);
  // once unpublished, the editor refills from the server (the callback runs after both hooks are set up)
  const { persona, validation, submit, unpublish } = usePersona(id, () => manifest.reload());
  const manifest = useManifestEditor(id, persona.data);

  if (persona.isPending) return <PageLoader />;
  if (!persona.data) return <ErrorAlert error={persona.error} title="The persona did not load" />;
  const p = persona.data;
  const editable = EDITABLE_STATUSES.includes(p.status);
  const { editor, busy } = manifest;
  const settled = !busy && (editor.kind === 'saved' || editor.kind === 'idle');
  const canSubmit = editable && settled && validation.data?.valid === true;
  return (
    <>
      <Anchor component={Link} to="/personas" size="sm">
        ← Personas
      </Anchor>
      <PageHeader
        title={p.name || p.id}
        description={
          <>
            <StatusBadge status={p.status} /> version {p.version} · updated {formatTime(p.updatedAt)}
            {p.publishedAt ? ` · published ${formatTime(p.publishedAt)}` : ''}
          </>
        }
        actions={
          <>
            <Button variant="default" aria-expanded={calling} onClick={() => setCalling(!calling)}>
              {calling ? 'Close test call' : 'Test call'}
            </Button>
            {editable ? (
              <Button onClick={() => submit.mutate()} disabled={!canSubmit} loading={submit.isPending}>
                Submit for review
              </Button>
            ) : null}
            {p.status === 'published' ? (
              <Button variant="default" onClick={() => unpublish.mutate()} loading={unpublish.isPending}>
                Unpublish
              </Button>
            ) : null}
            {p.status !== 'published' ? (
              <Button variant="outline" color="red.8" onClick={() => setDeleting(true)}>
                Delete
              </Button>
            ) : null}
          </>
        }
      />
      <ErrorAlert error={submit.error ?? unpublish.error} title="That did not work" />
      {submit.data ? (
        <Alert color="blue" role="status" mb="md">
          {submit.data.message}
        </Alert>
      ) : null}
      <ReviewNotice persona={p} />
      <UnsavedDraftNotice
        editor={editor}
        heldBack={manifest.heldBack}
        onRetry={manifest.retry}
        onDiscard={manifest.discard}
      />
      {calling ? (
        <Suspense fallback={<PageLoader />}>
          <TestCallPanel personaId={p.id} label={p.name || p.id} />
        </Suspense>
      ) : null}
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <ManifestTabs
            manifest={manifest}
            ruleErrors={settled ? (validation.data?.errors ?? []) : []}
            readOnlyReason={
              editable
                ? null
                : `A ${p.status} persona cannot be edited${p.status === 'published' ? ': unpublish it first' : ''}.`
            }
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          {/* beside the long form, the verdict stays in view while scrolling (wide screens) */}
          <Box pos={{ base: 'static', md: 'sticky' }} top={80}>
            <ValidationPanel
              editor={editor}
              validation={settled ? validation.data : undefined}
              pending={busy || validation.isFetching}
              error={validation.error}
            />
          </Box>
        </Grid.Col>
      </Grid>
      <LeaveGuard unsaved={editable && manifest.unsaved} />
      <DeletePersonaDialog id={id} persona={p} opened={deleting} onClose={() => setDeleting(false)} />
    </>
  );
}
