import { Alert, Button, Group, Text } from '@mantine/core';
import type { EditorState } from './useManifestEditor';

/**
 * The marker of a draft the server has not accepted (it stays in this browser until saved or
 * discarded): try saving again, or discard it for the server's version. A draft held back while the
 * persona cannot be edited can only be discarded.
 */
export function UnsavedDraftNotice(props: {
  editor: EditorState;
  heldBack: boolean;
  onRetry(): void;
  onDiscard(): void;
}) {
  const { editor, heldBack } = props;
  if (!heldBack && editor.kind !== 'refused' && editor.kind !== 'invalid-json') return null;
  const title = heldBack
    ? 'Unsaved draft kept in this browser'
    : editor.kind === 'invalid-json'
      ? 'Unsaved draft — the JSON does not parse'
      : 'Unsaved draft — not accepted by the server';
  return (
    <Alert color="orange" title={title} mb="md" data-testid="unsaved-draft">
      <Text size="sm">
        {heldBack
          ? 'This browser holds changes that were never saved. They come back once the persona can be edited again.'
          : 'Your changes are kept in this browser (they survive a reload) until they are saved or discarded.'}
      </Text>
      <Group gap="xs" mt="xs">
        {editor.kind === 'refused' && !heldBack ? (
          <Button size="xs" variant="default" onClick={props.onRetry}>
            Try saving again
          </Button>
        ) : null}
        <Button size="xs" variant="outline" color="red.8" onClick={props.onDiscard}>
          Discard my changes
        </Button>
      </Group>
    </Alert>
  );
}
