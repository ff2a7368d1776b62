import type { ConsoleAuth } from '../accounts';
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { mountConsoleRunRoutes, mountPlatformRunRoutes } from './runs.routes';
import { mountScenarioRoutes } from './scenarios.routes';

/** Agent tests' routes: scenarios on the console API; runs on the console and platform APIs. */
export function mountAgentTestRoutes(
  console: ApiRoot<ConsoleAuth>,
  platform: ApiRoot<PlatformAuth>,
  ctx: AppContext,
): void {
  mountScenarioRoutes(console, ctx);
  mountConsoleRunRoutes(console, ctx);
  mountPlatformRunRoutes(platform, ctx);
}
