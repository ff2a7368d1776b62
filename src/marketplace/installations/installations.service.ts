import { type EntityManager, LockMode, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import { ApiError, conflict, notFound, validationFailed } from '../../http/errors';
import { MarketplaceItem } from '../items/item.entity';
import { iso } from '../items/items.service';
import type { InstallationStatus, ItemType } from '../items/statuses';
import { MarketplaceInstallation } from './installation.entity';

const what = (type: ItemType) => (type === 'tool' ? 'Tool' : 'Agent');
const gone = (message: string) => new ApiError(410, 'GONE', message);

/**
 * POST /install/tool and /install/agent: an approved item (one never approved, or of the other type,
 * is not found; one being removed takes no new installs: 410); the granted permissions must be a
 * subset of what it asks for (400 naming each other one); a second active installation is a 409
 * (also under concurrency: a partial unique index). The item's `activeInstalls` moves in the same
 * transaction.
 */
export async function install(
  em: EntityManager,
  userId: string,
  type: ItemType,
  itemId: string,
  grantedPermissions: string[],
) {
  const field = type === 'tool' ? 'toolId' : 'agentId';
  const already = () => conflict(`${what(type)} ${itemId} is already installed for user ${userId}`);
  try {
    const installation = await em.transactional(async (tem) => {
      const item = await tem.findOne(
        MarketplaceItem,
        { id: itemId, type },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!item?.approvedVersion) throw notFound(what(type));
      if (item.status === 'removal_scheduled' || item.status === 'removed') {
        throw gone(`${what(type)} ${itemId} was removed from the marketplace and takes no new installs`);
      }
      const asked = item.manifest.permissions ?? [];
      const problems: string[] = [];
      grantedPermissions.forEach((p, i) => {
        if (grantedPermissions.indexOf(p) !== i)
          problems.push(`grantedPermissions.${i}: "${p}" is listed twice`);
        else if (!asked.includes(p)) {
          problems.push(
            `grantedPermissions.${i}: "${p}" is not a permission ${itemId} asks for (${asked.length ? asked.join(', ') : 'it asks for none'})`,
          );
        }
      });
      if (problems.length)
        throw validationFailed(problems, 'Granted permissions must be ones the item asks for');
      if (await tem.count(MarketplaceInstallation, { userId, itemId, status: 'active' })) throw already();
      const created = tem.create(MarketplaceInstallation, {
        userId,
        itemId,
        itemType: type,
        grantedPermissions,
      });
      item.activeInstalls += 1;
      return created;
    });
    return {
      success: true as const,
      installation: {
        id: installation.id,
        [field]: itemId,
        installedAt: installation.installedAt.toISOString(),
        grantedPermissions: installation.grantedPermissions,
        status: installation.status,
      } as {
        id: string;
        installedAt: string;
        grantedPermissions: string[];
        status: InstallationStatus;
        toolId: string;
        agentId: string;
      },
    };
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw already();
    throw error;
  }
}

/** DELETE /install/tool/:id and /install/agent/:id: the user's own active installation of that type. */
export async function uninstall(em: EntityManager, userId: string, type: ItemType, id: string) {
  return em.transactional(async (tem) => {
    const installation = await tem.findOne(
      MarketplaceInstallation,
      { id, userId, itemType: type },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!installation) throw notFound('Installation');
    if (installation.status !== 'active') throw conflict(`Installation ${id} is ${installation.status}`);
    const now = new Date();
    tem.assign(installation, { status: 'uninstalled', uninstalledAt: now });
    await tem
      .getConnection()
      .execute(
        'update marketplace_items set active_installs = greatest(active_installs - 1, 0) where id = ?',
        [installation.itemId],
        'run',
        tem.getTransactionContext(),
      );
    return { success: true as const, id, uninstalledAt: now.toISOString() };
  });
}

/** GET /install/list: the user's installations, newest first (by default not the uninstalled ones). */
export async function listInstallations(
  em: EntityManager,
  userId: string,
  filter: { status?: InstallationStatus; type?: ItemType },
) {
  const installations = await em.find(
    MarketplaceInstallation,
    {
      userId,
      status: filter.status ?? { $in: ['active', 'removed'] },
      ...(filter.type ? { itemType: filter.type } : {}),
    },
    { orderBy: { installedAt: 'desc', id: 'asc' } },
  );
  const items = installations.length
    ? await em.find(MarketplaceItem, { id: [...new Set(installations.map((i) => i.itemId))] })
    : [];
  return {
    installations: installations.map((inst) => {
      const item = items.find((i) => i.id === inst.itemId)!;
      return {
        id: inst.id,
        itemId: inst.itemId,
        itemType: inst.itemType,
        itemName: item.name,
        version: item.version,
        installedAt: inst.installedAt.toISOString(),
        status: inst.status,
        grantedPermissions: inst.grantedPermissions,
        removedAt: iso(inst.removedAt),
        removesAt:
          inst.status === 'active' && item.status === 'removal_scheduled' ? iso(item.removesAt) : null,
      };
    }),
    totalCount: installations.length,
  };
}
