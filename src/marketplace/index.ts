/** The marketplace's public face for other areas: what voice sessions and reviews use of it. */
export {
  type ExecuteInstalledToolInput,
  type ExecuteInstalledToolResult,
  executeInstalledTool,
} from './execution/execution.service';
export { type MeteringStatements, metering, periodOf } from './execution/metering';
export {
  type InstalledTool,
  type InstalledToolRow,
  installedToolsForUser,
  installedToolsOf,
  installedToolsQuery,
} from './installations/installed-tools';
export { MarketplaceItemVersion } from './items/item.entity';
export { TIERS, type Tier } from './items/statuses';
