import type { MarketplaceUser } from '../../auth/marketplace-auth';
import type { AppContext } from '../../common/context';
import type { ApiRoot } from '../../http/api-router';
import {
  AgentInstalled,
  InstallAgentBody,
  InstallationIdParams,
  InstallationList,
  InstallToolBody,
  ListInstallationsQuery,
  ToolInstalled,
  Uninstalled,
} from './installations.schemas';
import { install, listInstallations, uninstall } from './installations.service';

export function mountInstallationRoutes(user: ApiRoot<MarketplaceUser>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  user
    .route({
      method: 'post',
      path: '/install/tool',
      summary: 'Install a tool',
      description:
        'An approved tool (404 otherwise; 410 once its publisher removed it). `grantedPermissions` must be a subset of the tool’s `permissions` (400 naming each other one). Installing a tool you already have active → 409.',
      body: InstallToolBody,
      success: { description: 'Installed', schema: ToolInstalled },
      handler: ({ auth, body }) => install(em(), auth.userId, 'tool', body.toolId, body.grantedPermissions),
    })
    .route({
      method: 'post',
      path: '/install/agent',
      summary: 'Install an agent',
      description: 'As for tools.',
      body: InstallAgentBody,
      success: { description: 'Installed', schema: AgentInstalled },
      handler: ({ auth, body }) => install(em(), auth.userId, 'agent', body.agentId, body.grantedPermissions),
    })
    .route({
      method: 'delete',
      path: '/install/tool/:id',
      summary: 'Uninstall a tool (by installation id)',
      params: InstallationIdParams,
      success: { description: 'Uninstalled', schema: Uninstalled },
      handler: ({ auth, params }) => uninstall(em(), auth.userId, 'tool', params.id),
    })
    .route({
      method: 'delete',
      path: '/install/agent/:id',
      summary: 'Uninstall an agent (by installation id)',
      params: InstallationIdParams,
      success: { description: 'Uninstalled', schema: Uninstalled },
      handler: ({ auth, params }) => uninstall(em(), auth.userId, 'agent', params.id),
    })
    .route({
      method: 'get',
      path: '/install/list',
      summary: 'Your installations',
      query: ListInstallationsQuery,
      success: { description: 'Newest first', schema: InstallationList },
      handler: ({ auth, query }) => listInstallations(em(), auth.userId, query),
    });
}
