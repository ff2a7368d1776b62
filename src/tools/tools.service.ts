import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import type { AppContext } from '../common/context';
import { deleteOwned, findOwned, listOwned } from '../common/owned';
import type { Owner } from '../common/owner';
import { validationFailed } from '../http/errors';
import { describeIssuesUnder } from '../http/validation';
import { McpServer } from '../mcp';
import { oauthTokenProblem } from '../oauth';
import { urlProblems } from '../outbound/http';
import { executeTool } from './execute';
import { Tool, type ToolType } from './tool.entity';
import type { CreateToolInput, ListToolsInput, TestToolInput, UpdateToolInput } from './tools.schemas';
import { CONFIG_SCHEMAS, type ToolParameters } from './tools.schemas';

/** Parameters when none are given: prompt tools take their `{{input}}` text; others take nothing. */
const DEFAULT_PARAMETERS: Record<ToolType, ToolParameters> = {
  webhook: { type: 'object', properties: {} },
  mcp: { type: 'object', properties: {} },
  prompt: { type: 'object', properties: { input: { type: 'string', description: 'Replaces {{input}}' } } },
};

export function toolView(t: Tool) {
  return {
    id: t.id,
    name: t.name,
    description: t.description ?? null,
    type: t.type,
    config: t.config,
    parameters: t.parameters,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

const findTool = (em: EntityManager, owner: Owner, id: string) => findOwned(em, Tool, owner, id, 'Tool');

/** Config checks beyond its shape: a reachable-looking URL, an MCP server of the caller's. */
async function checkConfig(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  type: ToolType,
  config: unknown,
) {
  const parsed = (CONFIG_SCHEMAS[type] as z.ZodType).safeParse(config);
  if (!parsed.success) {
    throw validationFailed(describeIssuesUnder(parsed.error.issues, 'config'));
  }
  const value = parsed.data as Record<string, unknown>;
  if (type === 'webhook') {
    const problems = [
      ...urlProblems(ctx.config.outbound, { 'config.url': value.url as string }),
      ...[
        await oauthTokenProblem(em, owner, value.oauthTokenId as string | undefined, 'config.oauthTokenId'),
      ].filter((p) => p !== undefined),
    ];
    if (problems.length) throw validationFailed(problems);
  }
  if (type === 'mcp') {
    const server = await em.findOne(McpServer, {
      id: value.serverId as string,
      account: owner.accountId,
      environment: owner.environment,
    });
    if (!server) throw validationFailed(['config.serverId: no such MCP server']);
  }
  return value;
}

export async function createTool(ctx: AppContext, em: EntityManager, owner: Owner, input: CreateToolInput) {
  const config = await checkConfig(ctx, em, owner, input.type, input.config);
  const tool = em.create(Tool, {
    account: owner.accountId,
    environment: owner.environment,
    name: input.name,
    description: input.description ?? null,
    type: input.type,
    config,
    parameters: input.parameters ?? DEFAULT_PARAMETERS[input.type],
  });
  await em.flush();
  return toolView(tool);
}

export async function listTools(em: EntityManager, owner: Owner, query: ListToolsInput) {
  const { items, total } = await listOwned(em, Tool, owner, query, query.type ? { type: query.type } : {});
  return { data: items.map(toolView), total };
}

export async function getTool(em: EntityManager, owner: Owner, id: string) {
  return toolView(await findTool(em, owner, id));
}

export async function updateTool(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  id: string,
  changes: UpdateToolInput,
) {
  const tool = await findTool(em, owner, id);
  if (changes.type && changes.type !== tool.type && !changes.config) {
    throw validationFailed(['config: required when the type changes']);
  }
  const type = changes.type ?? tool.type;
  if (changes.config) tool.config = await checkConfig(ctx, em, owner, type, changes.config);
  if (changes.name !== undefined) tool.name = changes.name;
  if (changes.description !== undefined) tool.description = changes.description;
  if (changes.parameters) tool.parameters = changes.parameters;
  tool.type = type;
  tool.updatedAt = new Date();
  await em.flush();
  return toolView(tool);
}

export async function deleteTool(em: EntityManager, owner: Owner, id: string) {
  await deleteOwned(em, Tool, owner, id, 'Tool');
  return { deleted: true as const, id };
}

export async function testTool(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  id: string,
  body: TestToolInput,
) {
  const tool = await findTool(em, owner, id);
  if (body.sessionId) await ctx.references.session(em, owner, body.sessionId);
  return executeTool(ctx, owner, tool, body.arguments, body.sessionId);
}
