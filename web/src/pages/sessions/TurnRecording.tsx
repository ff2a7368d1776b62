import { Group, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiCallError, api, environmentStore } from '../../api/client';
import { useStoredValue } from '../../store';

type Side = 'caller' | 'agent';

/** A turn's recording of one side (MP3), fetched with the console's key; null when there is none (404). */
function useRecording(sessionId: string, index: number, side: Side) {
  const environment = useStoredValue(environmentStore);
  return useQuery({
    queryKey: ['recording', environment, sessionId, index, side],
    queryFn: async (): Promise<Blob | null> => {
      const { data, error, response } = await api.GET(
        '/api/v2/developers/sessions/{id}/turns/{index}/audio',
        {
          params: { path: { id: sessionId, index }, query: { side } },
          parseAs: 'blob',
        },
      );
      if (response.status === 404) return null;
      if (!response.ok || !data) throw new ApiCallError(error, response.status);
      return data as Blob;
    },
    // a recording never changes once kept; one not there yet may be asked for again (on a later visit)
    staleTime: (query) => (query.state.data ? Number.POSITIVE_INFINITY : 0),
  });
}

/** A blob as an object URL while the component shows it (revoked after). */
export function useObjectUrl(blob: Blob | null | undefined): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!blob) return;
    const made = URL.createObjectURL(blob);
    setUrl(made);
    return () => {
      URL.revokeObjectURL(made);
      setUrl(undefined);
    };
  }, [blob]);
  return url;
}

function SideRecording({ sessionId, index, side }: { sessionId: string; index: number; side: Side }) {
  const recording = useRecording(sessionId, index, side);
  const url = useObjectUrl(recording.data);
  const name = side === 'caller' ? 'Caller' : 'Agent';
  if (recording.error) {
    return (
      <Text size="xs" c="red.9">
        {name} recording did not load
      </Text>
    );
  }
  if (!url) return null;
  return (
    <Group gap={6} wrap="nowrap">
      <Text size="xs" fw={700}>
        {name}
      </Text>
      {/* biome-ignore lint/a11y/useMediaCaption: a recording of the turn, whose words are the transcript above */}
      <audio
        controls
        preload="metadata"
        src={url}
        aria-label={`${name} recording, turn ${index}`}
        data-testid={`recording-${side}`}
        style={{ height: 32, maxWidth: '100%' }}
      />
    </Group>
  );
}

/** A recorded turn's audio, caller and agent, each where it was kept. */
export function TurnRecordings({ sessionId, index }: { sessionId: string; index: number }) {
  return (
    <Group gap="md" mt="xs" data-testid="turn-recordings">
      <SideRecording sessionId={sessionId} index={index} side="caller" />
      <SideRecording sessionId={sessionId} index={index} side="agent" />
    </Group>
  );
}
