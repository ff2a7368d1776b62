import { Anchor, Button, Group, Paper, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { Link } from 'react-router';
import { environmentStore } from '../../api/client';
import { ErrorAlert, StatusBadge } from '../../components/ui';
import type { CallState } from '../../voice/test-call';
import { type TestCallHandle, useTestCall } from '../../voice/use-test-call';
import { CallKeypad } from './CallKeypad';
import { CallTranscript } from './CallTranscript';

/** The session's page, in the test environment (where test calls run). */
function SessionLink({ sessionId }: { sessionId: string }) {
  const queryClient = useQueryClient();
  const toTest = () => {
    if (environmentStore.get() === 'test') return;
    environmentStore.set('test');
    void queryClient.invalidateQueries();
  };
  return (
    <Text size="sm">
      Session{' '}
      <Anchor component={Link} to={`/sessions/${sessionId}`} onClick={toTest} ff="monospace">
        {sessionId}
      </Anchor>{' '}
      (test environment): its turns, actions and recordings.
    </Text>
  );
}

/** What the caller can do during a call: type, speak, press keys, interrupt, hang up. */
function CallControls({ call, state }: { call: TestCallHandle; state: CallState }) {
  const [text, setText] = useState('');
  const live = state.phase === 'live';
  const micOn = state.microphone !== 'off';
  const send = (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return;
    call.sendText(text.trim());
    setText('');
  };
  return (
    <>
      <form onSubmit={send}>
        <Group align="flex-end" gap="xs" mt="sm">
          <TextInput
            label="Say something"
            placeholder="Type and press Enter"
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            disabled={!live}
            style={{ flex: '1 1 240px' }}
          />
          <Button type="submit" variant="default" disabled={!live || !text.trim()}>
            Send
          </Button>
        </Group>
      </form>
      <Group gap="xs" mt="sm">
        <Button
          variant={micOn ? 'filled' : 'default'}
          aria-pressed={micOn}
          loading={state.microphone === 'starting'}
          disabled={!live || !state.speechToText}
          onClick={() => call.setMicrophone(!micOn)}
        >
          Microphone
        </Button>
        <Button variant="default" disabled={!live} onClick={call.interrupt}>
          Interrupt
        </Button>
        <Button color="red.8" disabled={!live} onClick={call.end}>
          End call
        </Button>
        {state.microphone === 'on' ? (
          <Text size="sm" role="status">
            Listening: speak to the agent.
          </Text>
        ) : null}
      </Group>
      <CallKeypad disabled={!live} onKey={call.sendKeys} />
      {live && !state.speechToText ? (
        <Text size="sm" c="dimmed" mt="xs">
          This server has no speech-to-text provider (STT_BASE_URL), so the microphone is off: type instead.
        </Text>
      ) : null}
    </>
  );
}

/**
 * A test call with a persona (docs/console.md "Test calls"): starts a recorded session in the test
 * environment (drafts too), shows the live transcript with tool and workflow actions, plays the reply
 * as it streams, and takes typed text or the microphone; Interrupt stops the reply, End call hangs up.
 */
export default function TestCallPanel({ personaId, label }: { personaId: string; label: string }) {
  const call = useTestCall();
  const queryClient = useQueryClient();
  const titleId = useId();
  const state = call.state;
  const phase = state?.phase;
  useEffect(() => {
    if (phase === 'ended') void queryClient.invalidateQueries({ queryKey: ['sessions'] });
  }, [phase, queryClient]);
  const inCall = phase === 'starting' || phase === 'live';
  return (
    <Paper withBorder p="md" mb="md" component="section" aria-labelledby={titleId} data-testid="test-call">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id={titleId}>
          Test call with {label}
        </Title>
        <Group gap="xs">
          {phase ? <StatusBadge status={phase === 'live' ? 'active' : phase} /> : null}
          <Button onClick={() => call.start(personaId)} disabled={inCall} loading={phase === 'starting'}>
            {phase ? 'Call again' : 'Start call'}
          </Button>
        </Group>
      </Group>
      <Text size="sm" c="dimmed" mb="xs">
        In the test environment, recorded. Speak or type; the reply plays as it streams.
      </Text>
      <ErrorAlert error={state?.problem} title="That did not work" />
      {state?.sessionId ? <SessionLink sessionId={state.sessionId} /> : null}
      {state ? (
        <>
          <CallTranscript entries={call.entries} />
          <CallControls call={call} state={state} />
        </>
      ) : null}
    </Paper>
  );
}
