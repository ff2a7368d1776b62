import { Anchor, Button, Text, VisuallyHidden } from '@mantine/core';
import { Link } from 'react-router';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatTime, StatusBadge } from '../../components/ui';
import { UsedBy } from '../tools/UsedBy';
import { QuotaUse } from './QuotaUse';
import { type Installation, itemPath, useInstallations, useUninstall } from './queries';

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
          <Anchor component={Link} to={itemPath(i.itemType, i.itemId)}>
            {i.itemName}
          </Anchor>{' '}
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
    { header: 'Quota use', cell: (i) => <QuotaUse itemId={i.itemId} itemName={i.itemName} /> },
    {
      header: 'Used by',
      cell: (i) => (i.itemType === 'tool' ? <UsedBy type="marketplace" id={i.itemId} /> : '—'),
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

/** The "Installed" tab: the account's installations with this month's quota use, uninstall. */
export function InstalledTab() {
  const installs = useInstallations();
  const uninstall = useUninstall();
  const columns = installationColumns(uninstall.isPending ? uninstall.variables?.id : undefined, (i) =>
    uninstall.mutate({ id: i.id, itemType: i.itemType }),
  );
  return (
    <ListBody
      items={installs.data}
      pending={installs.isPending}
      error={installs.error ?? uninstall.error}
      empty="Nothing installed yet."
    >
      {(rows) => (
        <DataTable
          label="Installations"
          minWidth={760}
          striped
          rows={rows}
          columns={columns}
          rowKey={(i) => i.id}
        />
      )}
    </ListBody>
  );
}
