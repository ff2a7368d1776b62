import { Anchor, Box, Button, Grid, Tabs } from '@mantine/core';
import { lazy, type ReactNode, Suspense, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import type { components } from '../api/schema';
import { ErrorAlert, formatTime, PageHeader, PageLoader, StatusBadge } from '../components/ui';
import { PlaceCallDialog } from './calls/PlaceCallDialog';
import { DeletePersonaDialog } from './personas/DeletePersonaDialog';
import { LeaveGuard } from './personas/LeaveGuard';
import { ManifestTabs } from './personas/ManifestTabs';
import { ReviewNotice } from './personas/ReviewNotice';
import { TestsTab } from './personas/tests/TestsTab';
import { UnsavedDraftNotice } from './personas/UnsavedDraftNotice';
import { EDITABLE_STATUSES, useManifestEditor } from './personas/useManifestEditor';
import { usePersona } from './personas/usePersona';
import { ValidationPanel } from './personas/ValidationPanel';
import { VersionsTab } from './personas/versions/VersionsTab';

// the call's audio and stream code loads when a call panel is first opened
const TestCallPanel = lazy(() => import('./test-call/TestCallPanel'));

type Persona = components['schemas']['Persona'];
type ManifestEditing = ReturnType<typeof useManifestEditor>;
type PersonaQueries = ReturnType<typeof usePersona>;
type Validation = PersonaQueries['validation'];

/** One tab of the persona page: `?tab=<value>` opens it (the first tab has no parameter). */
interface PersonaTab {
  value: string;
  label: string;
  panel: ReactNode;
}

/** The manifest as a form or as JSON beside the submission rules' verdict. */
function ManifestPanel(props: { persona: Persona; manifest: ManifestEditing; validation: Validation }) {
  const { persona: p, manifest, validation } = props;
  const editable = EDITABLE_STATUSES.includes(p.status);
  const { editor, busy } = manifest;
  const settled = !busy && (editor.kind === 'saved' || editor.kind === 'idle');
  return (
    <Grid gap="md">
      <Grid.Col span={{ base: 12, md: 7 }}>
        <ManifestTabs
          manifest={manifest}
          ruleErrors={settled ? (validation.data?.errors ?? []) : []}
          readOnlyReason={
            editable
              ? null
              : `A ${p.status} persona cannot be edited${p.status === 'published' ? ': revise it (Versions tab) to edit a draft while it stays live' : ''}.`
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
  );
}

/** The page's tabs, in order; the selected one is `?tab=` (the first when absent or unknown). */
function PersonaTabs({ tabs }: { tabs: PersonaTab[] }) {
  const [params, setParams] = useSearchParams();
  const first = tabs[0]?.value ?? '';
  const named = params.get('tab');
  const tab = tabs.some((t) => t.value === named) ? (named as string) : first;
  return (
    <Tabs
      value={tab}
      onChange={(v) => setParams(v && v !== first ? { tab: v } : {}, { replace: true })}
      keepMounted={false}
    >
      <Tabs.List mb="md">
        {tabs.map((t) => (
          <Tabs.Tab key={t.value} value={t.value}>
            {t.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {tabs.map((t) => (
        <Tabs.Panel key={t.value} value={t.value}>
          {t.panel}
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}

/**
 * The header's buttons: a test call; submit (drafts), unpublish (published), delete (never live: a
 * revision of a live persona is not deleted, the API refuses it).
 */
function PersonaActions(props: {
  persona: Persona;
  calling: boolean;
  onCall(): void;
  onPhoneCall(): void;
  canSubmit: boolean;
  submit: PersonaQueries['submit'];
  unpublish: PersonaQueries['unpublish'];
  onDelete(): void;
}) {
  const { persona: p, submit, unpublish } = props;
  return (
    <>
      <Button variant="default" aria-expanded={props.calling} onClick={props.onCall}>
        {props.calling ? 'Close test call' : 'Test call'}
      </Button>
      <Button variant="default" onClick={props.onPhoneCall}>
        Call a number
      </Button>
      {EDITABLE_STATUSES.includes(p.status) ? (
        <Button onClick={() => submit.mutate()} disabled={!props.canSubmit} loading={submit.isPending}>
          Submit for review
        </Button>
      ) : null}
      {p.status === 'published' ? (
        <Button variant="default" onClick={() => unpublish.mutate()} loading={unpublish.isPending}>
          Unpublish
        </Button>
      ) : null}
      {p.status !== 'published' && p.liveVersion === null ? (
        <Button variant="outline" color="red.8" onClick={props.onDelete}>
          Delete
        </Button>
      ) : null}
    </>
  );
}

/**
 * One persona, in tabs: its manifest as a form or as JSON (two inner tabs, one draft) that saves the
 * draft as you type (after a pause) and validates it through the API, showing each error on its field
 * and listing every error and warning; a draft the server refuses stays in this browser until saved
 * or discarded, and leaving with unsaved changes asks first; its test scenarios and runs (Tests);
 * its approved versions, their differences, rollback and revising the published one (Versions).
 * Above the tabs: submit, review notes, unpublish; a test call with it (drafts too); a phone call
 * from one of the account's numbers (Call a number).
 */
export default function PersonaPage() {
  const { id = '' } = useParams();
  const [deleting, setDeleting] = useState(false);
  const [calling, setCalling] = useState(false);
  const [phoning, setPhoning] = useState(false);
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
  const tabs: PersonaTab[] = [
    {
      value: 'manifest',
      label: 'Manifest',
      panel: <ManifestPanel persona={p} manifest={manifest} validation={validation} />,
    },
    { value: 'tests', label: 'Tests', panel: <TestsTab personaId={p.id} /> },
    { value: 'versions', label: 'Versions', panel: <VersionsTab persona={p} /> },
  ];
  return (
    <>
      <Anchor component={Link} to="/personas" size="sm">
        ← Personas
      </Anchor>
      <PageHeader
        title={p.name || p.id}
        description={
          <>
            <StatusBadge status={p.status} /> {p.liveVersion ? `live: version ${p.liveVersion} · ` : ''}edit #
            {p.version} · updated {formatTime(p.updatedAt)}
            {p.publishedAt ? ` · published ${formatTime(p.publishedAt)}` : ''}
          </>
        }
        actions={
          <PersonaActions
            persona={p}
            calling={calling}
            onCall={() => setCalling(!calling)}
            onPhoneCall={() => setPhoning(true)}
            canSubmit={canSubmit}
            submit={submit}
            unpublish={unpublish}
            onDelete={() => setDeleting(true)}
          />
        }
      />
      <ErrorAlert error={submit.error ?? unpublish.error} title="That did not work" />
      {/* the review's state (under review, then its decision) is ReviewNotice's, from the persona as it is now */}
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
      <PersonaTabs tabs={tabs} />
      <LeaveGuard unsaved={editable && manifest.unsaved} />
      <PlaceCallDialog
        personaId={p.id}
        personaName={p.name || p.id}
        opened={phoning}
        onClose={() => setPhoning(false)}
      />
      <DeletePersonaDialog id={id} persona={p} opened={deleting} onClose={() => setDeleting(false)} />
    </>
  );
}
