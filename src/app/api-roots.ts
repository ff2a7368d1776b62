import type { Request, Response } from 'express';
import { type ConsoleAuth, consoleAuthenticator } from '../accounts/console-auth';
import { observeApiCalls } from '../analytics/observe';
import { type AdminAuth, adminAuthenticator } from '../auth/admin-auth';
import {
  authenticateMarketplacePublisher,
  authenticateMarketplaceUser,
  type MarketplacePublisher,
  type MarketplaceUser,
} from '../auth/marketplace-auth';
import { type PlatformAuth, requireScope } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { ApiRoot } from '../http/api-router';
import type { OpenApiRegistry } from '../http/openapi';
import { idempotentRequests } from '../idempotency/idempotent-request';
import { platformOrConsoleAuthenticator } from './console-platform-auth';
import { operatorOrReviewerAuthenticator } from './review-auth';

export const API_ROOTS = {
  platform: '/api/v2/developers',
  console: '/api/v1/developers',
  marketplace: '/api/marketplace',
  admin: '/api/admin',
} as const;

/** The API roots, so feature modules can add routes to them. */
export interface ApiRoots {
  platform: ApiRoot<PlatformAuth>;
  /** Platform routes without an API key (the OAuth redirect target), limited per address. */
  platformPublic: ApiRoot<null>;
  console: ApiRoot<ConsoleAuth>;
  marketplaceUser: ApiRoot<MarketplaceUser>;
  marketplacePublisher: ApiRoot<MarketplacePublisher>;
  /** Marketplace routes without identity headers (browse). */
  marketplacePublic: ApiRoot<null>;
  admin: ApiRoot<AdminAuth>;
  /**
   * The operator API's review routes (also under `/api/admin`): ADMIN_TOKEN, or the ID token of a
   * console user an operator marked as reviewer, whose calls spend from their console budget.
   */
  reviews: ApiRoot<AdminAuth>;
}

/** What the marketplace's three roots share: one path, one tag, one operation id prefix. */
const marketplace = {
  basePath: API_ROOTS.marketplace,
  name: 'Marketplace API',
  tag: 'Marketplace',
  operationPrefix: 'marketplace',
};

/**
 * Every API root with how it authenticates, limits and observes its callers (docs/api-contract.md
 * "API roots and credentials"); the areas add their routes to them (src/app/routes.ts).
 */
export function createApiRoots(ctx: AppContext, registry: OpenApiRegistry): ApiRoots {
  const observeKeyCalls = observeApiCalls(ctx.apiCalls);
  const limitAnonymous = (req: Request, res: Response) =>
    ctx.rateLimits.consumeAnonymous(res, req.ip ?? 'unknown');
  return {
    platform: new ApiRoot<PlatformAuth>(
      {
        basePath: API_ROOTS.platform,
        name: 'Platform API v2',
        security: 'apiKey',
        authenticate: platformOrConsoleAuthenticator(ctx),
        // the console's calls spend from the console's budgets, never from those of the account's keys
        limit: (_req, res, auth, rateClass) =>
          auth.console
            ? ctx.rateLimits.consumeConsole(res, auth.accountId, rateClass)
            : ctx.rateLimits.consume(res, `${auth.accountId}:${auth.environment}`, auth.plan, rateClass),
        limitAnonymous,
        authorize: requireScope,
        observe: (req, res, auth, route) => {
          if (!auth.console) observeKeyCalls(req, res, auth, route);
        },
        idempotency: idempotentRequests(ctx),
      },
      registry,
    ),
    platformPublic: new ApiRoot<null>(
      {
        basePath: API_ROOTS.platform,
        name: 'Platform API v2',
        authenticate: () => null,
        limit: (req, res) => ctx.rateLimits.consumeAnonymous(res, req.ip ?? 'unknown'),
      },
      registry,
    ),
    console: new ApiRoot<ConsoleAuth>(
      {
        basePath: API_ROOTS.console,
        name: 'Console API v1',
        operationPrefix: 'console',
        security: 'idToken',
        authenticate: consoleAuthenticator(ctx),
        limit: (_req, res, auth, rateClass) => ctx.rateLimits.consumeConsole(res, auth.account.id, rateClass),
        limitAnonymous,
      },
      registry,
    ),
    marketplaceUser: new ApiRoot<MarketplaceUser>(
      {
        ...marketplace,
        security: 'marketplaceUser',
        authenticate: authenticateMarketplaceUser,
      },
      registry,
    ),
    marketplacePublisher: new ApiRoot<MarketplacePublisher>(
      {
        ...marketplace,
        security: 'marketplacePublisher',
        authenticate: authenticateMarketplacePublisher,
      },
      registry,
    ),
    marketplacePublic: new ApiRoot<null>(
      {
        ...marketplace,
        authenticate: () => null,
      },
      registry,
    ),
    admin: new ApiRoot<AdminAuth>(
      {
        basePath: API_ROOTS.admin,
        name: 'Operator API',
        operationPrefix: 'admin',
        tag: 'Operators',
        security: 'adminToken',
        authenticate: adminAuthenticator(ctx.config.adminToken),
        limitAnonymous,
      },
      registry,
    ),
    reviews: new ApiRoot<AdminAuth>(
      {
        basePath: API_ROOTS.admin,
        name: 'Operator API',
        operationPrefix: 'admin',
        tag: 'Operators',
        security: 'adminToken',
        authenticate: operatorOrReviewerAuthenticator(ctx),
        limit: async (_req, res, auth, rateClass) => {
          if (auth.reviewer) await ctx.rateLimits.consumeConsole(res, auth.reviewer.accountId, rateClass);
        },
        limitAnonymous,
      },
      registry,
    ),
  };
}
