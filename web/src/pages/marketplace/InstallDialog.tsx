import { Button, Checkbox, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert, formatNumber, GOOD, PageLoader } from '../../components/ui';
import type { ItemSummary, ItemType } from './types';

type ItemDetail =
  | components['schemas']['MarketplaceToolDetail']['tool']
  | components['schemas']['MarketplaceAgentDetail']['agent'];

/** A tool's or agent's detail (its permissions and quotas), loaded while its install dialog is open. */
function useItemDetail(type: ItemType, item: ItemSummary | null) {
  return useQuery({
    queryKey: ['marketplace', 'detail', type, item?.id],
    enabled: item !== null,
    queryFn: async (): Promise<ItemDetail> => {
      const id = item!.id;
      return type === 'tool'
        ? unwrap(await api.GET('/api/marketplace/browse/tools/{id}', { params: { path: { id } } })).tool
        : unwrap(await api.GET('/api/marketplace/browse/agents/{id}', { params: { path: { id } } })).agent;
    },
  });
}

/** "Install …": the item's description, quotas and permissions (all granted unless unticked), then install. */
export function InstallDialog({
  item,
  type,
  onClose,
}: {
  item: ItemSummary | null;
  type: ItemType;
  onClose(): void;
}) {
  const queryClient = useQueryClient();
  const [granted, setGranted] = useState<string[] | null>(null);
  const detail = useItemDetail(type, item);
  const permissions = detail.data?.permissions ?? [];
  const chosen = granted ?? permissions;
  const install = useMutation({
    mutationFn: async () =>
      type === 'tool'
        ? unwrap(
            await api.POST('/api/marketplace/install/tool', {
              body: { toolId: item!.id, grantedPermissions: chosen },
            }),
          )
        : unwrap(
            await api.POST('/api/marketplace/install/agent', {
              body: { agentId: item!.id, grantedPermissions: chosen },
            }),
          ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['marketplace'] }),
  });
  const close = () => {
    setGranted(null);
    install.reset();
    onClose();
  };
  return (
    <Modal opened={item !== null} onClose={close} title={item ? `Install ${item.name}` : ''} size="lg">
      {detail.isPending ? (
        <PageLoader />
      ) : detail.data ? (
        <Stack>
          <ItemTerms detail={detail.data} />
          <PermissionChoice permissions={permissions} chosen={chosen} onChange={setGranted} />
          <ErrorAlert error={install.error} title="Not installed" />
          {install.data ? (
            <Text role="status" c={GOOD}>
              Installed ({install.data.installation.id}).
            </Text>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {install.data ? 'Close' : 'Cancel'}
            </Button>
            {!install.data ? (
              <Button onClick={() => install.mutate()} loading={install.isPending}>
                Install
              </Button>
            ) : null}
          </Group>
        </Stack>
      ) : (
        <ErrorAlert error={detail.error} />
      )}
    </Modal>
  );
}

/** What the item does and how many executions a month each plan gets. */
function ItemTerms({ detail }: { detail: ItemDetail }) {
  return (
    <>
      <Text size="sm">{detail.description.long || detail.description.short}</Text>
      <Text size="sm">
        Quota per month: free {formatNumber(detail.quotas.free)}, pro {formatNumber(detail.quotas.pro)},
        enterprise {formatNumber(detail.quotas.enterprise)} executions.
      </Text>
    </>
  );
}

/** The permissions the item asks for, one checkbox each. */
function PermissionChoice(props: {
  permissions: string[];
  chosen: string[];
  onChange(value: string[]): void;
}) {
  if (!props.permissions.length) return <Text size="sm">It asks for no permissions.</Text>;
  return (
    <Checkbox.Group label="Permissions to grant" value={props.chosen} onChange={props.onChange}>
      <Stack gap={4} mt={4}>
        {props.permissions.map((p) => (
          <Checkbox key={p} value={p} label={p} />
        ))}
      </Stack>
    </Checkbox.Group>
  );
}
