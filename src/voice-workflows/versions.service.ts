import type { EntityManager } from '@mikro-orm/postgresql';
import type { Page } from '../common/owned';
import type { Owner } from '../common/owner';
import { WorkflowVersion } from './workflow-version.entity';
import { findWorkflow } from './workflows.service';

function versionView(v: WorkflowVersion) {
  return {
    version: v.version,
    name: v.name,
    description: v.description ?? null,
    trigger: v.trigger,
    nodes: v.nodes,
    edges: v.edges,
    createdAt: v.createdAt.toISOString(),
  };
}

/** A workflow's saved versions, newest first. */
export async function listVersions(em: EntityManager, owner: Owner, id: string, page: Page) {
  const workflow = await findWorkflow(em, owner, id);
  const [items, total] = await em.findAndCount(
    WorkflowVersion,
    { workflowId: workflow.id },
    { orderBy: { version: 'desc' }, limit: page.limit, offset: page.offset },
  );
  return { data: items.map(versionView), total };
}
