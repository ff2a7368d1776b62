import { Alert, Button, Group, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { formatTime } from '../../components/ui';

type Webhook = components['schemas']['Webhook'];

/** "3 d 4 h", "12 min", "40 s": how long until `at`. */
function countdown(at: string, now: number): string {
  const s = Math.max(0, Math.round((Date.parse(at) - now) / 1000));
  if (s >= 86_400) return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return s >= 60 ? `${Math.floor(s / 60)} min` : `${s} s`;
}

const REASONS: Record<string, string> = {
  failing: 'every attempt failed for too long',
  gone: 'the endpoint answered 410 Gone',
  manual: 'it was turned off',
};

/**
 * A failing webhook's count-down to being disabled (docs/webhooks.md "Disabling"), why a disabled
 * one is, and "Recover missed events" (POST /webhooks/:id/recover) with the recovery's progress.
 */
export function WebhookHealth({ webhook: w, onChanged }: { webhook: Webhook; onChanged: () => void }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!w.disablesAt) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [w.disablesAt]);
  return (
    <>
      {w.disablesAt ? (
        <Alert color="orange" title="Attempts are failing" role="status" data-testid="disable-countdown">
          Every attempt has failed since {formatTime(w.failingSince)}. Unless one succeeds, this webhook is
          disabled in {countdown(w.disablesAt, now)} ({formatTime(w.disablesAt)}).
        </Alert>
      ) : null}
      {!w.enabled && w.disabledReason ? (
        <Alert color="red" title="Disabled" role="status">
          Disabled {formatTime(w.disabledAt)}: {REASONS[w.disabledReason] ?? w.disabledReason}. Enable it,
          then recover the events it missed.
        </Alert>
      ) : null}
      <RecoverEvents webhook={w} onChanged={onChanged} />
    </>
  );
}

/** A `since` (default: the failures' start, else a day ago) and the recovery it started. */
function RecoverEvents({ webhook: w, onChanged }: { webhook: Webhook; onChanged: () => void }) {
  const start = w.failingSince ?? w.disabledAt ?? new Date(Date.now() - 86_400_000).toISOString();
  const [since, setSince] = useState(start.slice(0, 16));
  const path = { id: w.id };
  const recover = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v2/developers/webhooks/{id}/recover', {
          params: { path },
          body: { since: new Date(since).toISOString() },
        }),
      ).data,
    onSuccess: onChanged,
  });
  const recoveryId = recover.data?.id ?? '';
  const progress = useQuery({
    queryKey: ['webhook-recovery', w.id, recoveryId],
    enabled: recoveryId !== '',
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/webhooks/{id}/recoveries/{recoveryId}', {
          params: { path: { id: w.id, recoveryId } },
        }),
      ).data,
    refetchInterval: (q) =>
      q.state.data && q.state.data.pending === 0 && q.state.data.status !== 'running' ? false : 2000,
  });
  const r = progress.data ?? recover.data;
  return (
    <Group gap="sm" align="end">
      <TextInput
        type="datetime-local"
        label="Recover events since"
        value={since}
        onChange={(e) => setSince(e.currentTarget.value)}
      />
      <Button
        variant="default"
        onClick={() => recover.mutate()}
        loading={recover.isPending}
        disabled={!w.enabled}
      >
        Recover missed events
      </Button>
      {recover.error ? (
        <Text c="red" size="sm">
          {String((recover.error as Error).message)}
        </Text>
      ) : null}
      {r ? (
        <Text size="sm" data-testid="recovery-progress">
          Recovery {r.status}: {r.sent} of {r.total} sent{r.failed ? `, ${r.failed} failed` : ''}
          {r.pending ? `, ${r.pending} pending` : ''}
        </Text>
      ) : null}
    </Group>
  );
}
