import { Button, Checkbox, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorAlert, formatNumber, GOOD, PageLoader } from '../../components/ui';
import { type ItemDetail, useItemDetail } from './queries';
import type { ItemType } from './types';

/** What the install dialog is opened for: a tool or agent by id and name. */
export interface InstallTarget {
  id: string;
  name: string;
}

/** "Install …": the item's description, quotas and permissions (all granted unless unticked), then install. */
export function InstallDialog({
  item,
  type,
  onClose,
}: {
  item: InstallTarget | null;
  type: ItemType;
  onClose(): void;
}) {
  const queryClient = useQueryClient();
  const [granted, setGranted] = useState<string[] | null>(null);
  const detail = useItemDetail(type, item?.id);
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
