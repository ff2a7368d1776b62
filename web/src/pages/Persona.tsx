import { Alert, Anchor, Button, Grid } from '@mantine/core';
import { lazy, Suspense, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorAlert, formatTime, PageHeader, PageLoader, StatusBadge } from '../components/ui';
import { DeletePersonaDialog } from './personas/DeletePersonaDialog';
import { ManifestEditor } from './personas/ManifestEditor';
import { ReviewNotice } from './personas/ReviewNotice';
import { useManifestEditor } from './personas/useManifestEditor';
import { usePersona } from './personas/usePersona';
import { ValidationPanel } from './personas/ValidationPanel';

const EDITABLE = ['draft', 'rejected'];
// the call's audio and stream code loads when a call panel is first opened
const TestCallPanel = lazy(() => import('./test-call/TestCallPanel'));

/**
 * One persona: its manifest in a JSON editor that saves the draft as you type (after a pause) and
 * validates it through the API, listing every error and warning; submit, review notes, unpublish;
 * a test call with it (drafts too).
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
  const editable = EDITABLE.includes(p.status);
  const { editor, busy } = manifest;
  const canSubmit = editable && !busy && editor.kind !== 'invalid-json' && validation.data?.valid === true;
  const settled = !busy && (editor.kind === 'saved' || editor.kind === 'idle');
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
      {calling ? (
        <Suspense fallback={<PageLoader />}>
          <TestCallPanel personaId={p.id} label={p.name || p.id} />
        </Suspense>
      ) : null}
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <ManifestEditor
            text={manifest.text}
            editor={editor}
            onEdit={manifest.onEdit}
            readOnlyReason={
              editable
                ? null
                : `A ${p.status} persona cannot be edited${p.status === 'published' ? ': unpublish it first' : ''}.`
            }
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <ValidationPanel
            editor={editor}
            validation={settled ? validation.data : undefined}
            pending={busy || validation.isFetching}
            error={validation.error}
          />
        </Grid.Col>
      </Grid>
      <DeletePersonaDialog id={id} persona={p} opened={deleting} onClose={() => setDeleting(false)} />
    </>
  );
}
