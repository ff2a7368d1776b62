import { Alert, Anchor, Button, Grid, Group, List, Modal, Stack, Text, Textarea, Title } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiCallError, api, errorText, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorAlert, formatTime, PageHeader, PageLoader, StatusBadge } from '../components/ui';

type Persona = components['schemas']['Persona'];
type Validation = components['schemas']['PersonaValidation'];

const EDITABLE = ['draft', 'rejected'];

/** What the editor says about the text in it: a JSON or shape problem, the save, then the rules. */
type EditorState =
  | { kind: 'idle' }
  | { kind: 'invalid-json'; message: string }
  | { kind: 'saving' }
  | { kind: 'refused'; problems: string[]; message: string }
  | { kind: 'saved'; at: number };

/**
 * One persona: its manifest in a JSON editor that saves the draft as you type (after a pause) and
 * validates it through the API, listing every error and warning; submit, review notes, unpublish.
 */
export default function PersonaPage() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const persona = useQuery({
    queryKey: ['persona', id],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/developers/personas/{id}', { params: { path: { id } } })).persona,
    // while under review, follow the decision as it lands
    refetchInterval: (query) => (query.state.data?.status === 'submitted' ? 2000 : false),
  });
  const validation = useQuery({
    queryKey: ['persona', id, 'validation', persona.data?.version],
    enabled: persona.data !== undefined,
    queryFn: async () =>
      unwrap(await api.POST('/api/v1/developers/personas/{id}/validate', { params: { path: { id } } })),
  });

  const [text, setText] = useState('');
  const [editor, setEditor] = useState<EditorState>({ kind: 'idle' });
  const loadedVersion = useRef<number | null>(null);
  useEffect(() => {
    // fill the editor from the server once, and again when the persona changes elsewhere (not while typing)
    if (persona.data && loadedVersion.current === null) {
      loadedVersion.current = persona.data.version;
      setText(JSON.stringify(persona.data.manifest, null, 2));
    }
  }, [persona.data]);

  const save = useMutation({
    mutationFn: async (manifest: Persona['manifest']) =>
      unwrap(
        await api.PUT('/api/v1/developers/personas/{id}', {
          params: { path: { id } },
          body: { manifest },
        }),
      ).persona,
    onMutate: () => setEditor({ kind: 'saving' }),
    onSuccess: (saved) => {
      loadedVersion.current = saved.version;
      queryClient.setQueryData(['persona', id], saved);
      setEditor({ kind: 'saved', at: Date.now() });
    },
    onError: (error) =>
      setEditor({
        kind: 'refused',
        message: errorText(error),
        problems: error instanceof ApiCallError ? error.validationErrors : [],
      }),
  });
  const saveLater = useDebouncedCallback((manifest: Persona['manifest']) => save.mutate(manifest), 600);

  const onEdit = (value: string) => {
    setText(value);
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (e) {
      setEditor({ kind: 'invalid-json', message: (e as Error).message });
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setEditor({ kind: 'invalid-json', message: 'The manifest must be a JSON object' });
      return;
    }
    setEditor({ kind: 'saving' });
    saveLater(parsed as Persona['manifest']);
  };

  const submit = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/developers/personas/{id}/submit', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['persona', id] }),
  });
  const unpublish = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/developers/personas/{id}/unpublish', { params: { path: { id } } }))
        .persona,
    onSuccess: (p) => {
      loadedVersion.current = null;
      queryClient.setQueryData(['persona', id], p);
    },
  });
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation({
    mutationFn: async () =>
      unwrap(await api.DELETE('/api/v1/developers/personas/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ['personas'] });
      navigate('/personas');
    },
  });

  if (persona.isPending) return <PageLoader />;
  if (!persona.data) return <ErrorAlert error={persona.error} title="The persona did not load" />;
  const p = persona.data;
  const editable = EDITABLE.includes(p.status);
  const busy = editor.kind === 'saving' || save.isPending;
  const canSubmit = editable && !busy && editor.kind !== 'invalid-json' && validation.data?.valid === true;

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

      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Textarea
            label="Manifest (JSON)"
            description={
              editable
                ? 'Saved as you type; validated against the submission rules after each save.'
                : `A ${p.status} persona cannot be edited${p.status === 'published' ? ': unpublish it first' : ''}.`
            }
            value={text}
            onChange={(e) => onEdit(e.currentTarget.value)}
            readOnly={!editable}
            autosize
            minRows={18}
            maxRows={40}
            spellCheck={false}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
          />
          <Text size="sm" mt={4} aria-live="polite" data-testid="save-state">
            {editor.kind === 'saving'
              ? 'Saving…'
              : editor.kind === 'saved'
                ? 'Saved'
                : editor.kind === 'invalid-json'
                  ? 'Not saved: fix the JSON'
                  : editor.kind === 'refused'
                    ? 'Not saved'
                    : ''}
          </Text>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <ValidationPanel
            editor={editor}
            validation={
              busy || (editor.kind !== 'saved' && editor.kind !== 'idle') ? undefined : validation.data
            }
            pending={busy || validation.isFetching}
            error={validation.error}
          />
        </Grid.Col>
      </Grid>

      <Modal opened={deleting} onClose={() => setDeleting(false)} title="Delete this persona?">
        <Stack>
          <Text>
            {p.name || p.id} is deleted for good{p.status === 'submitted' ? ' and its review withdrawn' : ''}.
          </Text>
          <ErrorAlert error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(false)}>
              Cancel
            </Button>
            <Button color="red.8" onClick={() => remove.mutate()} loading={remove.isPending}>
              Delete persona
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

function ReviewNotice({ persona }: { persona: Persona }) {
  if (persona.status === 'submitted') {
    return (
      <Alert color="blue" role="status" mb="md" title="Under review">
        Submitted {formatTime(persona.submittedAt)}. Review takes 2-5 business days; this page updates when it
        is decided.
      </Alert>
    );
  }
  if (!persona.review) return null;
  const approved = persona.review.decision === 'approved';
  return (
    <Alert
      color={approved ? 'green' : 'red'}
      mb="md"
      title={`Review ${persona.review.decision}`}
      data-testid="review"
    >
      <Text size="sm">Decided {formatTime(persona.review.decidedAt)}.</Text>
      {persona.review.notes ? (
        <Text size="sm" mt={4}>
          Reviewer notes: {persona.review.notes}
        </Text>
      ) : null}
    </Alert>
  );
}

function ValidationPanel(props: {
  editor: EditorState;
  validation: Validation | undefined;
  pending: boolean;
  error: unknown;
}) {
  const { editor, validation } = props;
  return (
    <Stack gap="sm" aria-live="polite" data-testid="validation">
      <Title order={2} size="h4">
        Validation
      </Title>
      {editor.kind === 'invalid-json' ? (
        <Alert color="red" title="The JSON does not parse">
          {editor.message}
        </Alert>
      ) : editor.kind === 'refused' ? (
        <Alert color="red" title="The manifest was refused">
          {editor.problems.length ? (
            <List size="sm">
              {editor.problems.map((problem) => (
                <List.Item key={problem}>{problem}</List.Item>
              ))}
            </List>
          ) : (
            editor.message
          )}
        </Alert>
      ) : null}
      <ErrorAlert error={props.error} />
      {validation ? (
        <>
          {validation.valid ? (
            <Alert color="green" title="Ready to submit">
              Every submission rule passes.
            </Alert>
          ) : (
            <Alert
              color="red"
              title={`${validation.errors.length} error${validation.errors.length === 1 ? '' : 's'}`}
            >
              <List size="sm">
                {validation.errors.map((error) => (
                  <List.Item key={error}>{error}</List.Item>
                ))}
              </List>
            </Alert>
          )}
          {validation.warnings.length ? (
            <Alert
              color="yellow"
              title={`${validation.warnings.length} warning${validation.warnings.length === 1 ? '' : 's'}`}
            >
              <List size="sm">
                {validation.warnings.map((warning) => (
                  <List.Item key={warning}>{warning}</List.Item>
                ))}
              </List>
            </Alert>
          ) : null}
        </>
      ) : props.pending ? (
        <Text size="sm">Checking…</Text>
      ) : null}
    </Stack>
  );
}
