import type { EntityManager } from '@mikro-orm/postgresql';
import semver from 'semver';
import type { MarketplacePublisher as PublisherAuth } from '../../auth/marketplace-auth';
import type { AppContext } from '../../common/context';
import { MarketplaceItem } from '../items/item.entity';
import { findPublisherItem, manifestContext } from '../items/items.service';
import { type ItemManifest, validateManifest } from '../items/manifest';
import { manifestWarnings } from '../items/manifest-warnings';
import type { ItemType } from '../items/statuses';

type Ctx = Pick<AppContext, 'config'>;

/** What a manifest breaks: the publisher check (403 on submit), then every other problem (400). */
export interface ManifestProblems {
  /** The manifest names another publisher than the caller. */
  publisherMismatch: string | null;
  errors: string[];
  /** The manifest as stored, when it passes the rules (even if `publisherMismatch`). */
  manifest: ItemManifest | null;
}

/**
 * The checks a submitted manifest passes before anything is stored: the publisher in the manifest
 * must be the caller; the manifest rules; for an agent, that each of its tools is an approved
 * marketplace tool. Submit, update and validate share them.
 */
export async function manifestProblems(
  ctx: Ctx,
  em: EntityManager,
  auth: PublisherAuth,
  type: ItemType,
  raw: Record<string, unknown>,
): Promise<ManifestProblems> {
  const publisher = raw.publisher as { id?: unknown } | undefined;
  const publisherMismatch =
    typeof publisher?.id === 'string' && publisher.id !== auth.publisherId
      ? `manifest.publisher.id "${publisher.id}" is not the authenticated publisher (${auth.publisherId})`
      : null;
  const result = validateManifest(type, raw, manifestContext(ctx.config));
  const errors = result.ok ? [] : [...result.errors];
  if (type === 'agent' && Array.isArray(raw.tools)) {
    const ids = raw.tools.filter((t): t is string => typeof t === 'string' && t.length <= 64);
    const approved = ids.length
      ? await em.find(MarketplaceItem, { id: ids, type: 'tool', status: 'approved' }, { fields: ['id'] })
      : [];
    raw.tools.forEach((t, i) => {
      if (typeof t === 'string' && !approved.some((a) => a.id === t)) {
        errors.push(`manifest.tools.${i}: "${t}" is not an approved marketplace tool`);
      }
    });
  }
  return { publisherMismatch, errors, manifest: result.ok ? result.manifest : null };
}

/** What submitting (no `itemId`) or updating `itemId` with this manifest would meet besides the rules. */
async function submissionProblems(
  em: EntityManager,
  auth: PublisherAuth,
  input: { type: ItemType; manifest: Record<string, unknown>; itemId?: string },
): Promise<string[]> {
  const { id, version } = input.manifest;
  if (input.itemId === undefined) {
    const taken = typeof id === 'string' && (await em.findOne(MarketplaceItem, { id }, { fields: ['id'] }));
    return taken ? [`manifest.id: "${id}" is already taken in the marketplace`] : [];
  }
  const item = await findPublisherItem(em, auth.publisherId, input.itemId);
  const problems: string[] = [];
  if (item.type !== input.type) problems.push(`type: item ${item.id} is a ${item.type}`);
  if (id !== item.id) problems.push(`manifest.id: must be "${item.id}", the item being updated`);
  if (typeof version === 'string' && semver.valid(version) && !semver.gt(version, item.latestVersion)) {
    problems.push(
      `manifest.version: must be greater than the latest submitted version ${item.latestVersion}`,
    );
  }
  if (item.status === 'removal_scheduled') problems.push(`item ${item.id}: restore it before updating it`);
  if (item.status === 'removed') problems.push(`item ${item.id}: it is removed and cannot be updated`);
  return problems;
}

/**
 * POST /publisher/validate: every problem submitting (or, with `itemId`, updating that item with)
 * this manifest would meet, without storing anything: the publisher check, the rules, an agent's
 * tools, a taken id, a version not greater than the latest; and the warnings a review would note.
 */
export async function validateSubmission(
  ctx: Ctx,
  em: EntityManager,
  auth: PublisherAuth,
  input: { type: ItemType; manifest: Record<string, unknown>; itemId?: string },
) {
  const checked = await manifestProblems(ctx, em, auth, input.type, input.manifest);
  const validationErrors = [
    ...(checked.publisherMismatch ? [checked.publisherMismatch] : []),
    ...checked.errors,
    ...(await submissionProblems(em, auth, input)),
  ];
  const warnings = checked.manifest
    ? manifestWarnings(input.type, checked.manifest, manifestContext(ctx.config))
    : [];
  return { valid: validationErrors.length === 0, validationErrors, warnings };
}
