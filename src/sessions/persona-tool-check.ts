import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolReference } from '../common/references';
import { type InstalledToolRow, installedToolsOf, installedToolsQuery } from '../marketplace';
import { McpServer } from '../mcp';
import { Tool } from '../tools';
import { functionName } from './offered-tools';

/** What one reference offers the model: its names, and in which environment (marketplace tools: both). */
interface Offered {
  index: number;
  environments: readonly string[];
  names: string[];
}

const BOTH = ['test', 'live'] as const;

/**
 * The problems with a persona's `tools` (docs/personas.md "Tools"), as `"tools[i]: …"` lines: an id
 * that is not the account's, a reference named twice, an allow-list name its server does not list,
 * and two tools that reach the model under one name in one environment. A server whose tools were
 * never listed is taken as offering none yet (its names are checked when a session lists them, where
 * the first of two wins).
 */
export async function checkPersonaTools(
  em: EntityManager,
  accountId: string,
  refs: readonly ToolReference[],
): Promise<string[]> {
  if (refs.length === 0) return [];
  const ids = (type: ToolReference['type']) => refs.filter((r) => r.type === type).map((r) => r.id);
  const [tools, servers, installedRows] = await Promise.all([
    em.find(Tool, { account: accountId, id: { $in: ids('tool') } }),
    em.find(McpServer, { account: accountId, id: { $in: ids('mcp_server') } }),
    (() => {
      // all of the account's installations (a handful): the statement takes no list
      const q = installedToolsQuery(accountId);
      return em.getConnection().execute<InstalledToolRow[]>(q.sql, q.bindings);
    })(),
  ]);
  const installed = new Set(installedToolsOf(installedRows).map((t) => t.itemId));
  const errors: string[] = [];
  const offered: Offered[] = [];
  const seen = new Map<string, number>();
  for (const [index, ref] of refs.entries()) {
    const key = `${ref.type}:${ref.id}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      errors.push(`tools[${index}]: names ${ref.id} again (as tools[${earlier}] does)`);
      continue;
    }
    seen.set(key, index);
    const found = offeredBy(ref, index, { tools, servers, installed });
    if (typeof found === 'string') errors.push(found);
    else {
      errors.push(...found.problems);
      offered.push(found);
    }
  }
  return [...errors, ...nameClashes(offered)];
}

/** What one reference offers, with the problems of its allow-list; or why it offers nothing. */
function offeredBy(
  ref: ToolReference,
  index: number,
  account: { tools: Tool[]; servers: McpServer[]; installed: Set<string> },
): string | (Offered & { problems: string[] }) {
  if (ref.type === 'tool') {
    const tool = account.tools.find((t) => t.id === ref.id);
    if (!tool) return `tools[${index}]: ${ref.id} is not a tool of your account`;
    return { index, environments: [tool.environment], names: [functionName(tool.name)], problems: [] };
  }
  if (ref.type === 'marketplace') {
    if (!account.installed.has(ref.id)) {
      return `tools[${index}]: ${ref.id} is not a marketplace tool your account installed`;
    }
    return { index, environments: BOTH, names: [functionName(`market__${ref.id}`)], problems: [] };
  }
  const server = account.servers.find((s) => s.id === ref.id);
  if (!server) return `tools[${index}]: ${ref.id} is not an MCP server of your account`;
  const listed = server.tools?.map((t) => t.name);
  const problems = (ref.tools ?? [])
    .filter((name) => listed && !listed.includes(name))
    .map((name) => `tools[${index}].tools: ${server.name} lists no tool "${name}"`);
  const names = (listed ?? []).filter((n) => !ref.tools || ref.tools.includes(n));
  return {
    index,
    environments: [server.environment],
    names: names.map((n) => functionName(`${server.name}__${n}`)),
    problems,
  };
}

/** Two references whose tools reach the model under one name in one environment. */
function nameClashes(offered: Offered[]): string[] {
  const first = new Map<string, number>();
  const clashes: string[] = [];
  for (const { index, environments, names } of offered) {
    for (const environment of environments) {
      for (const name of new Set(names)) {
        const key = `${environment}:${name}`;
        const earlier = first.get(key);
        if (earlier === undefined) first.set(key, index);
        else if (earlier !== index)
          clashes.push(`tools[${index}]: offers a tool named "${name}", as tools[${earlier}] does`);
      }
    }
  }
  return [...new Set(clashes)];
}
