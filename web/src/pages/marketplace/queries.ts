import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import type { ItemType } from './types';

export type Installation = components['schemas']['MarketplaceInstallation'];
/** A tool's or agent's public details (browse): description, versions, permissions, quotas, pricing. */
export type ItemDetail =
  | components['schemas']['MarketplaceToolDetail']['tool']
  | components['schemas']['MarketplaceAgentDetail']['agent'];
export type Tier = 'free' | 'pro' | 'enterprise';

/** The item's page in the console (tools and agents have their own paths: their details differ). */
export const itemPath = (type: ItemType, id: string) => `/marketplace/${type}s/${encodeURIComponent(id)}`;
/** The publisher's page of one of its items: review, versions, removal, analytics. */
export const publishedItemPath = (id: string) => `/marketplace/publishing/${encodeURIComponent(id)}`;

/** The signed-in account (the layout's query): its publisher id, and its plan, which is its marketplace tier. */
export function useAccount() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/me')),
  });
}

/** A tool's or agent's public details (approved items only; others are a 404). */
export function useItemDetail(type: ItemType, id: string | undefined) {
  return useQuery({
    queryKey: ['marketplace', 'detail', type, id],
    enabled: id !== undefined,
    queryFn: async (): Promise<ItemDetail> =>
      type === 'tool'
        ? unwrap(await api.GET('/api/marketplace/browse/tools/{id}', { params: { path: { id: id! } } })).tool
        : unwrap(await api.GET('/api/marketplace/browse/agents/{id}', { params: { path: { id: id! } } }))
            .agent,
  });
}

/** The account's installations (active, and removed by their publisher), newest first. */
export function useInstallations() {
  return useQuery({
    queryKey: ['marketplace', 'installs'],
    queryFn: async () => unwrap(await api.GET('/api/marketplace/install/list')).installations,
  });
}

/** The active installation of an item, if any. */
export const activeInstallationOf = (installations: readonly Installation[] | undefined, itemId: string) =>
  installations?.find((i) => i.itemId === itemId && i.status === 'active');

/** Uninstalls by installation id (tools and agents have their own routes); every marketplace view refreshes. */
export function useUninstall() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (i: { id: string; itemType: ItemType }) =>
      i.itemType === 'tool'
        ? unwrap(await api.DELETE('/api/marketplace/install/tool/{id}', { params: { path: { id: i.id } } }))
        : unwrap(await api.DELETE('/api/marketplace/install/agent/{id}', { params: { path: { id: i.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['marketplace'] }),
  });
}

/** This month's runs of an item against the account's quota (its plan's tier), and whether it may run now. */
export function useQuotaCheck(itemId: string, enabled = true) {
  const account = useAccount();
  const tier = account.data?.plan as Tier | undefined;
  return useQuery({
    queryKey: ['marketplace', 'quota', itemId, tier],
    enabled: enabled && tier !== undefined,
    queryFn: async () =>
      unwrap(
        await api.GET('/api/marketplace/quota/check/{itemId}', {
          params: { path: { itemId }, header: { 'x-subscription-tier': tier! } },
        }),
      ),
  });
}
