import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ApiCallError, environmentStore, platformGet } from '../../api/client';
import { useStoredValue } from '../../store';
import { useObjectUrl } from '../sessions/TurnRecording';

/** The call's recording (WAV, the caller and the agent on two channels); null when there is none (404). */
function useCallRecording(callId: string, ended: boolean) {
  const environment = useStoredValue(environmentStore);
  return useQuery({
    queryKey: ['call-recording', environment, callId, ended],
    queryFn: async (): Promise<Blob | null> => {
      const response = await platformGet(`/api/v2/developers/calls/${encodeURIComponent(callId)}/recording`);
      if (response.status === 404) return null;
      if (!response.ok) throw new ApiCallError(await response.json().catch(() => null), response.status);
      return response.blob();
    },
    // an ended call's recording never changes; one not there yet may be asked for again later
    staleTime: (query) => (query.state.data ? Number.POSITIVE_INFINITY : 0),
  });
}

/** The call's two-channel recording in a player, or why there is none. */
export function CallRecording({ callId, ended }: { callId: string; ended: boolean }) {
  const recording = useCallRecording(callId, ended);
  const url = useObjectUrl(recording.data);
  if (recording.isPending) return <Text size="sm">Loading the recording…</Text>;
  if (recording.error) {
    return (
      <Text size="sm" c="red.9" data-testid="call-recording-error">
        The recording did not load
      </Text>
    );
  }
  if (recording.data === null) {
    return (
      <Text size="sm" c="dimmed" data-testid="no-recording">
        No recording{ended ? '' : ' yet: it is kept once the call ends'}.
      </Text>
    );
  }
  if (!url) return null;
  return (
    // biome-ignore lint/a11y/useMediaCaption: the call's recording, whose words are the transcript below
    <audio
      controls
      preload="metadata"
      src={url}
      aria-label="Call recording (caller and agent on two channels)"
      data-testid="call-recording"
      style={{ width: '100%', maxWidth: 480 }}
    />
  );
}
