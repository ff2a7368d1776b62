import type { CoreContext } from '../../common/context';
import { probeMcpTool } from '../execution/mcp';
import { MarketplaceItem, MarketplaceItemVersion } from '../items/item.entity';
import { manifestContext } from '../items/items.service';
import { type AgentManifest, type ToolManifest, validateManifest } from '../items/manifest';
import { manifestWarnings } from '../items/manifest-warnings';

export interface CheckResult {
  passed: boolean;
  notes: string[];
}

/**
 * The review's automated checks, the first step of every marketplace review workflow: the manifest
 * lint again (rules and warnings), then for an `mcp` runtime a real MCP connection to the endpoint
 * through the SSRF guard whose `tools/list` must list `execution.toolName`, and for an agent that
 * each of its tools is still an approved marketplace tool. The findings are the version's
 * `reviewNotes`. Written once (a retried activity answers the stored findings); a version no longer
 * under review is left alone. Never fails for a finding: a failed check is a note the operator reads.
 */
export async function runAutomatedChecks(
  ctx: Pick<CoreContext, 'orm' | 'config'>,
  reviewId: string,
): Promise<CheckResult> {
  const em = ctx.orm.em.fork();
  const version = await em.findOne(MarketplaceItemVersion, { reviewId });
  if (!version) return { passed: false, notes: [] };
  if (version.checkedAt || version.status !== 'pending_review') {
    return { passed: version.checksPassed ?? false, notes: version.reviewNotes };
  }
  const item = await em.findOneOrFail(MarketplaceItem, { id: version.itemId });

  const notes: string[] = [];
  let passed = true;
  const mctx = manifestContext(ctx.config);
  const lint = validateManifest(item.type, version.manifest, mctx);
  if (lint.ok) notes.push('Manifest lint passed');
  else {
    passed = false;
    notes.push(...lint.errors.map((e) => `Manifest lint failed: ${e}`));
  }
  notes.push(...manifestWarnings(item.type, version.manifest, mctx));

  if (item.type === 'tool') {
    const { execution } = version.manifest as ToolManifest;
    if (execution.runtime.type === 'mcp' && execution.endpoint && execution.toolName) {
      const probe = await probeMcpTool(ctx, execution.endpoint, execution.toolName);
      passed &&= probe.passed;
      notes.push(probe.note);
    } else if (execution.runtime.type === 'http') {
      notes.push(
        'HTTP runtime: the endpoint is not called during review; each run POSTs the arguments to it',
      );
    }
  } else {
    const tools = (version.manifest as AgentManifest).tools;
    if (tools.length > 0) {
      const approved = await em.find(MarketplaceItem, { id: tools, type: 'tool', status: 'approved' });
      const missing = tools.filter((t) => !approved.some((a) => a.id === t));
      if (missing.length) {
        passed = false;
        notes.push(`Agent tools check failed: no longer approved marketplace tools: ${missing.join(', ')}`);
      } else notes.push(`Agent tools check passed: ${tools.join(', ')} are approved marketplace tools`);
    }
  }

  await em.nativeUpdate(
    MarketplaceItemVersion,
    { reviewId, checkedAt: null },
    { reviewNotes: notes, checksPassed: passed, checkedAt: new Date() },
  );
  const stored = await em.fork().findOneOrFail(MarketplaceItemVersion, { reviewId });
  return { passed: stored.checksPassed ?? passed, notes: stored.reviewNotes };
}
