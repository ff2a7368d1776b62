import semver from 'semver';
import { z } from 'zod';
import { describeIssuesUnder } from '../../http/validation';
import { type OutboundPolicy, urlProblem } from '../../outbound/http';
import { PersonaManifestSchema, validatePersonaManifest } from '../../personas';
import type { ItemType, Tier } from './statuses';

/**
 * Marketplace submission manifests (docs/api-contract.md "Marketplace manifests"): the rules, the
 * zod shapes, and `validateManifest`, which reports every problem at once as
 * `manifest.<path>: <problem>`.
 */

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Ids that would shadow a marketplace route segment (`/usage/summary`, `/publisher/items`, …). */
export const RESERVED_ITEM_IDS = ['items', 'profile', 'submit', 'summary', 'tools', 'agents'] as const;

/** Runtimes this platform runs on `POST /execute`; other `execution.runtime.type` values are listed only. */
export const EXECUTABLE_RUNTIMES = ['mcp', 'http'] as const;

/** Executions per user, item and calendar month when the manifest sets no `quotas` for the tier. */
export const DEFAULT_QUOTAS: Record<Tier, number> = { free: 100, pro: 10_000, enterprise: 1_000_000 };

export const SHORT_DESCRIPTION_MAX = 140;

/** True for a semantic version as written (`1.4.0`, `2.0.0-rc.1`, `1.0.0+build.5`); no `v` prefix, no loose forms. */
export function isSemver(version: string): boolean {
  return (
    semver.valid(version) !== null && /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)([-+].*)?$/.test(version)
  );
}

const itemId = z
  .string()
  .meta({ description: 'A slug of 3–64 characters, unique in the marketplace', example: 'weather-now' });

const version = z
  .string()
  .max(64, 'must be at most 64 characters')
  .meta({ description: 'Semantic version (semver 2.0.0)', example: '1.0.0' });

const Publisher = z.strictObject({
  id: z.string().min(1).max(128).meta({ description: 'Must equal the x-publisher-id header' }),
  name: z.string().min(1).max(128),
});

const Description = z.strictObject({
  short: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(SHORT_DESCRIPTION_MAX, `must be at most ${SHORT_DESCRIPTION_MAX} characters`),
  long: z.string().trim().min(1, 'is required').max(10_000, 'must be at most 10000 characters'),
});

const Permission = z
  .string()
  .regex(
    /^[a-z][a-z0-9_.:-]{0,63}$/,
    'must be a permission name (lowercase letters, digits, _ . : -; up to 64)',
  );

const Pricing = z
  .discriminatedUnion('model', [
    z.strictObject({ model: z.literal('free') }),
    z.strictObject({
      model: z.literal('per_execution'),
      priceCents: z
        .number()
        .int()
        .min(1)
        .max(100_000)
        .meta({ description: 'Charged per successful execution' }),
      currency: z.literal('USD').optional().meta({ description: 'USD (the default and only currency)' }),
    }),
  ])
  .meta({ id: 'MarketplacePricing' });

const quota = z.number().int().min(0).max(1_000_000_000);
const Quotas = z
  .strictObject({ free: quota.optional(), pro: quota.optional(), enterprise: quota.optional() })
  .meta({
    id: 'MarketplaceQuotas',
    description:
      'Executions per user and calendar month by subscription tier (defaults 100 / 10000 / 1000000)',
  });

const InputSchema = z
  .looseObject({
    type: z.literal('object'),
    properties: z.record(z.string(), z.looseObject({ type: z.string().optional() })).optional(),
    required: z.array(z.string()).optional(),
  })
  .meta({ description: 'JSON Schema of the arguments (type object); checked before a run' });

const common = {
  id: itemId,
  name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
  version,
  publisher: Publisher,
  description: Description,
  permissions: z
    .array(Permission)
    .max(50)
    .optional()
    .meta({ description: 'What the item asks users to grant' }),
  pricing: Pricing.optional().meta({ description: 'Default free' }),
  quotas: Quotas.optional(),
  changelog: z
    .string()
    .trim()
    .min(1, 'must not be empty when given')
    .max(2000, 'must be at most 2000 characters')
    .optional()
    .meta({ description: 'What changed in this version, shown with the version in browse' }),
};

export const ToolManifestSchema = z
  .strictObject({
    ...common,
    execution: z.strictObject({
      runtime: z.strictObject({
        type: z
          .string()
          .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a runtime name (lowercase)')
          .meta({ description: '`mcp` and `http` are executable here; others are listed only' }),
        version: z.string().min(1).max(32),
      }),
      endpoint: z
        .string()
        .max(2048)
        .optional()
        .meta({ description: 'mcp: the Streamable HTTP URL; http: the URL POSTed the arguments' }),
      toolName: z.string().min(1).max(200).optional().meta({ description: 'mcp: the tool to call' }),
    }),
    interface: z.strictObject({
      llmDescription: z.string().trim().min(1, 'is required').max(2000),
      inputSchema: InputSchema.optional(),
    }),
  })
  .meta({ id: 'MarketplaceToolManifest' });
export type ToolManifest = z.infer<typeof ToolManifestSchema>;

export const AgentManifestSchema = z
  .strictObject({
    ...common,
    displayName: z.string().trim().min(1, 'is required').max(100),
    persona: PersonaManifestSchema,
    tools: z
      .array(z.string().max(64))
      .max(50)
      .default([])
      .meta({ description: 'Ids of approved marketplace tools the agent uses' }),
  })
  .meta({ id: 'MarketplaceAgentManifest' });
export type AgentManifest = z.infer<typeof AgentManifestSchema>;

export type ItemManifest = ToolManifest | AgentManifest;

/** The rules, written once: `validateManifest` applies them; OpenAPI and docs/api-contract.md show them. */
export const MANIFEST_RULES = [
  'id: a slug (lowercase letters, digits, single hyphens) of 3–64 characters, unique in the marketplace (taken → 409); not one of ' +
    RESERVED_ITEM_IDS.join(', '),
  'name: 1–100 characters',
  'version: a semantic version (MAJOR.MINOR.PATCH, pre-release and build allowed); an update must be greater (else 409)',
  'publisher.id: equal to the x-publisher-id header (else 403); publisher.name: 1–128 characters',
  `description.short: 1–${SHORT_DESCRIPTION_MAX} characters; description.long: 1–10000 characters`,
  'permissions (optional): distinct names such as calendar:read',
  'pricing (optional): { model: "free" } or { model: "per_execution", priceCents }',
  'quotas (optional): { free?, pro?, enterprise? } executions per user and month (defaults 100 / 10000 / 1000000)',
  'changelog (optional): what changed in this version, 1–2000 characters',
  'tool: execution.runtime { type, version }; type mcp needs execution.endpoint and execution.toolName, http needs execution.endpoint (an http(s) URL the SSRF rules allow); other types are listed but not executable',
  'tool: interface.llmDescription 1–2000 characters; interface.inputSchema (optional) a JSON Schema of type object',
  'agent: displayName 1–100 characters; persona a persona manifest passing the console persona rules; tools ids of approved marketplace tools',
] as const;

export interface ManifestContext {
  outbound: OutboundPolicy;
  /** The catalog voice with this id (agent personas). */
  findVoice: (voiceId: string) => { provider: string } | undefined;
}

export type ValidatedManifest<T extends ItemType> = T extends 'tool' ? ToolManifest : AgentManifest;

type Raw = Record<string, unknown>;
const obj = (v: unknown): Raw | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : undefined;

/** Checks the zod shape cannot express, on the raw input so they are reported beside shape errors. */
function ruleProblems(type: ItemType, raw: Raw, ctx: ManifestContext): string[] {
  const problems: string[] = [];
  if (typeof raw.id === 'string') {
    if (raw.id.length < 3 || raw.id.length > 64 || !SLUG.test(raw.id)) {
      problems.push(
        'manifest.id: must be a slug of 3–64 characters (lowercase letters, digits, single hyphens)',
      );
    } else if ((RESERVED_ITEM_IDS as readonly string[]).includes(raw.id)) {
      problems.push(`manifest.id: "${raw.id}" is reserved`);
    }
  }
  if (typeof raw.version === 'string' && raw.version.length <= 64 && !isSemver(raw.version)) {
    problems.push(
      'manifest.version: must be a semantic version (MAJOR.MINOR.PATCH, e.g. 1.0.0; see semver.org)',
    );
  }
  if (Array.isArray(raw.permissions)) {
    const seen = new Set<unknown>();
    raw.permissions.forEach((p, i) => {
      if (seen.has(p)) problems.push(`manifest.permissions.${i}: "${String(p)}" is listed twice`);
      seen.add(p);
    });
  }
  if (type === 'tool') {
    const execution = obj(raw.execution);
    const runtime = obj(execution?.runtime)?.type;
    if (execution && (runtime === 'mcp' || runtime === 'http') && execution.endpoint === undefined) {
      problems.push(`manifest.execution.endpoint: is required for the ${runtime} runtime`);
    }
    if (execution && runtime === 'mcp' && execution.toolName === undefined) {
      problems.push('manifest.execution.toolName: is required for the mcp runtime');
    }
    if (typeof execution?.endpoint === 'string' && execution.endpoint.length <= 2048) {
      const problem = urlProblem(execution.endpoint, ctx.outbound);
      if (problem) problems.push(`manifest.execution.endpoint: ${problem}`);
    }
  } else {
    const persona = PersonaManifestSchema.safeParse(raw.persona);
    if (persona.success) {
      const result = validatePersonaManifest(persona.data, {
        slugTaken: () => false,
        findVoice: ctx.findVoice,
      });
      problems.push(...result.errors.map((e) => `manifest.persona.${e}`));
      // a persona's tools name its own account's; an agent's are the marketplace tools of `tools`
      if (persona.data.tools !== undefined) {
        problems.push(
          "manifest.persona.tools: not taken here; list the agent's marketplace tools in manifest.tools",
        );
      }
    }
    if (Array.isArray(raw.tools)) {
      const seen = new Set<unknown>();
      raw.tools.forEach((t, i) => {
        if (seen.has(t)) problems.push(`manifest.tools.${i}: "${String(t)}" is listed twice`);
        seen.add(t);
      });
    }
  }
  return problems;
}

/**
 * Every problem of a submitted manifest at once (`manifest.<path>: <problem>`), or the manifest as
 * stored. The publisher check (403) and the uniqueness of `id` (409) are the caller's; so is the
 * existence of an agent's tools (the database's).
 */
export function validateManifest<T extends ItemType>(
  type: T,
  raw: unknown,
  ctx: ManifestContext,
): { ok: true; manifest: ValidatedManifest<T> } | { ok: false; errors: string[] } {
  const record = obj(raw);
  if (!record) return { ok: false, errors: ['manifest: must be an object'] };
  const schema = type === 'tool' ? ToolManifestSchema : AgentManifestSchema;
  const parsed = schema.safeParse(record);
  const errors = [
    ...(parsed.success ? [] : describeIssuesUnder(parsed.error.issues, 'manifest')),
    ...ruleProblems(type, record, ctx),
  ];
  if (errors.length > 0 || !parsed.success) return { ok: false, errors: [...new Set(errors)] };
  return { ok: true, manifest: parsed.data as ValidatedManifest<T> };
}

/** True when `POST /execute` can run the tool (an mcp or http runtime). */
export function isExecutable(manifest: ToolManifest): boolean {
  return (EXECUTABLE_RUNTIMES as readonly string[]).includes(manifest.execution.runtime.type);
}

/** The monthly execution quota of a user of `tier` for this manifest. */
export function quotaLimit(manifest: Pick<ItemManifest, 'quotas'>, tier: Tier): number {
  return manifest.quotas?.[tier] ?? DEFAULT_QUOTAS[tier];
}

/** Cents charged per successful execution (0 for free items). */
export function priceCents(manifest: Pick<ItemManifest, 'pricing'>): number {
  return manifest.pricing?.model === 'per_execution' ? manifest.pricing.priceCents : 0;
}
