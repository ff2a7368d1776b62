import type { EntityManager } from '@mikro-orm/postgresql';
import { isExecutable, type ToolManifest } from '../items/manifest';

/** A marketplace tool a user has installed, as a voice session offers it to the model. */
export interface InstalledTool {
  itemId: string;
  installationId: string;
  /** The tool's name (manifest `name`); sessions derive a function name from it. */
  name: string;
  /** What the model reads: `interface.llmDescription` (else `description.short`). */
  description: string;
  /** `interface.inputSchema` when the manifest has one (a JSON Schema of type object). */
  inputSchema?: Record<string, unknown>;
  version: string;
}

/**
 * The user's active installations of executable marketplace tools (mcp and http runtimes), oldest
 * first, with their live (approved) manifest. Installations of an item being removed keep working
 * until its grace period ends, so they are included until then; afterwards they are `removed` and
 * left out. Run one with `executeInstalledTool(ctx, { userId, tier, itemId, arguments })`.
 */
export async function installedToolsForUser(em: EntityManager, userId: string): Promise<InstalledTool[]> {
  const { sql, bindings } = installedToolsQuery(userId);
  return installedToolsOf(await em.getConnection().execute<InstalledToolRow[]>(sql, bindings));
}

/** A row of `installedToolsQuery` (as the driver gives it, or as JSON). */
export interface InstalledToolRow {
  item_id: string;
  installation_id: string;
  manifest: ToolManifest;
  version: string;
}

/**
 * installedToolsForUser's statement, oldest first (also a subquery of a voice turn's context
 * statement); with `itemIds`, only those items, in that order (the ones a persona names, installed by
 * its account: a console installation's user id is the account's id).
 */
export function installedToolsQuery(
  userId: string,
  itemIds?: string[],
): { sql: string; bindings: unknown[] } {
  const select = `select inst.item_id, inst.id as installation_id, i.manifest, i.version
       from marketplace_installations inst join marketplace_items i on i.id = inst.item_id
      where inst.user_id = ? and inst.status = 'active' and inst.item_type = 'tool'
        and (i.status = 'approved' or (i.status = 'removal_scheduled' and i.removes_at > now()))`;
  if (!itemIds) return { sql: `${select} order by inst.installed_at, inst.id`, bindings: [userId] };
  return {
    sql: `${select} and inst.item_id = any(?::text[]) order by array_position(?::text[], inst.item_id::text)`,
    bindings: [userId, itemIds, itemIds],
  };
}

export function installedToolsOf(rows: InstalledToolRow[]): InstalledTool[] {
  return rows
    .filter((r) => isExecutable(r.manifest))
    .map((r) => ({
      itemId: r.item_id,
      installationId: r.installation_id,
      name: r.manifest.name,
      description: r.manifest.interface.llmDescription || r.manifest.description.short,
      ...(r.manifest.interface.inputSchema ? { inputSchema: r.manifest.interface.inputSchema } : {}),
      version: r.version,
    }));
}
