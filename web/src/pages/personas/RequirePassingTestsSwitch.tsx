import { Stack, Switch } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';

const SETTINGS_KEY = ['settings'];

/**
 * The account's `requirePassingTests` (GET/PATCH /settings; docs/personas.md "Gating the review on
 * tests"): on, a submission whose test suite does not pass is rejected at once; off, the operator
 * sees the results and decides. It is the account's setting, so it applies to every persona.
 */
export function RequirePassingTestsSwitch() {
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: SETTINGS_KEY,
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/settings')),
  });
  const change = useMutation({
    mutationFn: async (requirePassingTests: boolean) =>
      unwrap(await api.PATCH('/api/v1/developers/settings', { body: { requirePassingTests } })),
    onSuccess: (data) => queryClient.setQueryData(SETTINGS_KEY, data),
  });
  const checked = change.isPending
    ? (change.variables ?? false)
    : (settings.data?.requirePassingTests ?? false);
  return (
    <Stack gap={4}>
      <Switch
        label="Require passing tests to submit for review"
        description="Applies to every persona of the account: a submission whose tests fail is rejected at once, with the failures as its notes. Off, the reviewer sees the results and decides."
        checked={checked}
        onChange={(e) => change.mutate(e.currentTarget.checked)}
        disabled={settings.isPending || change.isPending}
        data-testid="require-passing-tests"
      />
      <ErrorAlert error={settings.error} title="The setting did not load" />
      <ErrorAlert error={change.error} title="The setting was not changed" />
    </Stack>
  );
}
