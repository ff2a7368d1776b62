import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { backoffPolling } from '../../api/polling';
import type { components } from '../../api/schema';

export type PublishedItem = components['schemas']['MarketplacePublisherItemDetail']['item'];
export type ItemVersion = PublishedItem['versions'][number];

/** The version under review, if any: its checks still run, or it waits for the operator. */
export const versionUnderReview = (item: PublishedItem | undefined) =>
  item?.versions.find((v) => v.status === 'pending_review');

/**
 * One of the account's items with every version, its review findings and decisions; followed
 * (polled, backing off; docs/console.md "Polling") while a version is under review, so the page
 * shows the checks' findings and the decision as they land.
 */
export function usePublishedItem(id: string) {
  return useQuery({
    queryKey: ['marketplace', 'published', id],
    queryFn: async () =>
      unwrap(await api.GET('/api/marketplace/publisher/{id}', { params: { path: { id } } })),
    refetchInterval: backoffPolling<{ item: PublishedItem }>(
      (data) => versionUnderReview(data?.item) !== undefined,
    ),
  });
}
