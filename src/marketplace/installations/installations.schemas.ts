import { z } from 'zod';
import { timestamp } from '../../http/envelope';
import { INSTALLATION_STATUSES, ITEM_TYPES } from '../items/statuses';

const granted = z
  .array(z.string().min(1).max(64))
  .max(50)
  .default([])
  .meta({ description: 'A subset of the permissions the item asks for (default none)' });

export const InstallToolBody = z
  .strictObject({ toolId: z.string().min(1).max(64), grantedPermissions: granted })
  .meta({ id: 'MarketplaceInstallToolRequest' });
export const InstallAgentBody = z
  .strictObject({ agentId: z.string().min(1).max(64), grantedPermissions: granted })
  .meta({ id: 'MarketplaceInstallAgentRequest' });

const base = {
  id: z.string().meta({ example: 'inst_…' }),
  installedAt: timestamp(),
  grantedPermissions: z.array(z.string()),
  status: z.enum(INSTALLATION_STATUSES),
};
export const ToolInstalled = z.object({
  success: z.literal(true),
  installation: z.object({ ...base, toolId: z.string() }),
});
export const AgentInstalled = z.object({
  success: z.literal(true),
  installation: z.object({ ...base, agentId: z.string() }),
});

export const Uninstalled = z.object({ success: z.literal(true), id: z.string(), uninstalledAt: timestamp() });

export const InstallationEntry = z
  .object({
    ...base,
    itemId: z.string(),
    itemType: z.enum(ITEM_TYPES),
    itemName: z.string(),
    version: z.string().meta({ description: "The item's live version" }),
    removedAt: timestamp()
      .nullable()
      .meta({ description: 'status removed: when the item’s grace period ended' }),
    removesAt: timestamp()
      .nullable()
      .meta({ description: 'The item is being removed: it keeps working until then' }),
  })
  .meta({ id: 'MarketplaceInstallation' });

export const ListInstallationsQuery = z.strictObject({
  status: z
    .enum(INSTALLATION_STATUSES)
    .optional()
    .meta({ description: 'Default: active and removed (not uninstalled)' }),
  type: z.enum(ITEM_TYPES).optional(),
});

export const InstallationList = z.object({
  installations: z.array(InstallationEntry),
  totalCount: z.number().int(),
});
export const InstallationIdParams = z.object({ id: z.string().min(1).max(40) });
