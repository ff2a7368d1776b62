import { Code, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ApiCallError, api, environmentStore } from '../../api/client';
import { useStoredValue } from '../../store';
import { useObjectUrl } from '../sessions/TurnRecording';

/** How long after a call ends the page still asks for a recording that is not there (it is being closed). */
const RECORDING_GRACE_MS = 30_000;

/**
 * The call's recording (WAV, the caller and the agent on two channels), fetched with the console's
 * credentials; null when there is none (404). Asked again when the call ends, and every 3 s for a
 * little while after while it is still missing.
 */
function useCallRecording(callId: string, endedAt: string | null) {
  const environment = useStoredValue(environmentStore);
  const ended = endedAt !== null;
  return useQuery({
    queryKey: ['call-recording', environment, callId, ended],
    queryFn: async (): Promise<Blob | null> => {
      const { data, error, response } = await api.GET('/api/v2/developers/calls/{id}/recording', {
        params: { path: { id: callId } },
        parseAs: 'blob',
      });
      if (response.status === 404) return null;
      if (!response.ok || !data) throw new ApiCallError(error, response.status);
      return data as Blob;
    },
    // an ended call's recording never changes; one not there yet may be asked for again later
    staleTime: (query) => (query.state.data ? Number.POSITIVE_INFINITY : 0),
    refetchInterval: (query) =>
      query.state.data === null && ended && Date.now() - Date.parse(endedAt) < RECORDING_GRACE_MS
        ? 3_000
        : false,
  });
}

/** The call's two-channel recording in a player, or why there is none. `endedAt`: null while it goes on. */
export function CallRecording({ callId, endedAt }: { callId: string; endedAt: string | null }) {
  const recording = useCallRecording(callId, endedAt);
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
        No recording{endedAt === null ? ' yet' : ''}. A call is recorded when its persona's{' '}
        <Code>behaviors.record_calls</Code> is on.
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
      aria-label="Call recording (caller left, agent right)"
      data-testid="call-recording"
      style={{ width: '100%', maxWidth: 480 }}
    />
  );
}
