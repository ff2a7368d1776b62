import { Progress, Stack, Text } from '@mantine/core';
import { formatNumber } from '../../components/ui';
import { useQuotaCheck } from './queries';

/** "3 of 100 runs this month" with a bar, and why it may not run now (quota used up, removed). */
export function QuotaUse({ itemId, itemName }: { itemId: string; itemName: string }) {
  const quota = useQuotaCheck(itemId);
  if (quota.error) return <Text size="xs">Quota not available</Text>;
  if (!quota.data) return <Text size="xs">…</Text>;
  const { quotaUsed, quotaLimit, allowed, reason } = quota.data;
  return (
    <Stack gap={2} data-testid={`quota-${itemId}`}>
      <Text size="xs">
        {formatNumber(quotaUsed)} of {formatNumber(quotaLimit)} runs this month
      </Text>
      <Progress
        size="sm"
        value={quotaLimit ? Math.min(100, (quotaUsed / quotaLimit) * 100) : 100}
        aria-label={`${itemName}: quota used this month`}
        color={allowed ? 'blue.8' : 'red.8'}
      />
      {!allowed && reason ? <Text size="xs">{reason}</Text> : null}
    </Stack>
  );
}
