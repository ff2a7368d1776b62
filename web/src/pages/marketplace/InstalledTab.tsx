import { Button, Text, VisuallyHidden } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatTime, StatusBadge } from '../../components/ui';
import type { ItemType } from './types';

type Installation = components['schemas']['MarketplaceInstallation'];

/** The installations table's columns; active ones have an Uninstall button (busy while theirs runs). */
function installationColumns(
  uninstalling: string | undefined,
  onUninstall: (i: Installation) => void,
): Column<Installation>[] {
  return [
    {
      header: 'Item',
      cell: (i) => (
        <>
          {i.itemName}{' '}
          <Text span size="xs">
            v{i.version}
          </Text>
        </>
      ),
    },
    { header: 'Type', cell: (i) => i.itemType },
    {
      header: 'Status',
      cell: (i) => (
        <>
          <StatusBadge status={i.status} />
          {i.removesAt ? <Text size="xs">removed {formatTime(i.removesAt)}</Text> : null}
        </>
      ),
    },
    { header: 'Permissions', cell: (i) => i.grantedPermissions.join(', ') || '—' },
    { header: 'Installed', cell: (i) => formatTime(i.installedAt) },
    {
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      cell: (i) =>
        i.status === 'active' ? (
          <Button
            size="xs"
            variant="outline"
            color="red.8"
            loading={uninstalling === i.id}
            onClick={() => onUninstall(i)}
            aria-label={`Uninstall ${i.itemName}`}
          >
            Uninstall
          </Button>
        ) : null,
    },
  ];
}

/** The "Installed" tab: the account's installations, uninstall. */
export function InstalledTab() {
  const queryClient = useQueryClient();
  const installs = useQuery({
    queryKey: ['marketplace', 'installs'],
    queryFn: async () => unwrap(await api.GET('/api/marketplace/install/list')),
  });
  const uninstall = useMutation({
    mutationFn: async (i: { id: string; itemType: ItemType }) =>
      i.itemType === 'tool'
        ? unwrap(await api.DELETE('/api/marketplace/install/tool/{id}', { params: { path: { id: i.id } } }))
        : unwrap(await api.DELETE('/api/marketplace/install/agent/{id}', { params: { path: { id: i.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['marketplace'] }),
  });
  const columns = installationColumns(uninstall.isPending ? uninstall.variables?.id : undefined, (i) =>
    uninstall.mutate({ id: i.id, itemType: i.itemType }),
  );
  return (
    <ListBody
      items={installs.data?.installations}
      pending={installs.isPending}
      error={installs.error ?? uninstall.error}
      empty="Nothing installed yet."
    >
      {(rows) => (
        <DataTable
          label="Installations"
          minWidth={640}
          striped
          rows={rows}
          columns={columns}
          rowKey={(i) => i.id}
        />
      )}
    </ListBody>
  );
}
