/**
 * Import rules, checked by `npm run lint` (dependency-cruiser).
 *
 * - no-circular: no import cycles anywhere, type-only imports included (tsPreCompilationDeps).
 * - context-imports-no-area: src/common/context.ts imports platform layers only, never an area.
 * - workflows-only-pure: Temporal workflow code runs in the deterministic workflow sandbox. Files in
 *   workflows/, and the pure modules they use, may import only @temporalio/workflow, each other and
 *   the allow-list below; type-only imports (erased at compile time) are always allowed. This is
 *   the ONE place that lists what workflow code may import.
 */

/** Pure modules (no I/O, no Node built-ins, deterministic) that workflow code may import as values. */
const PURE_MODULES = [
  '^src/voice-workflows/interpreter[.]ts$',
  '^src/voice-workflows/call-nodes[.]ts$',
  '^src/voice-workflows/expressions[.]ts$',
  '^src/voice-workflows/templates[.]ts$',
  '^src/voice-workflows/paths[.]ts$',
  '^src/voice-workflows/matching[.]ts$',
  '^src/sessions/turn-rules[.]ts$',
  '^src/temporal/search-attributes[.]ts$',
  '^src/telephony/calls/call-statuses[.]ts$',
  '^src/campaigns/calling-hours[.]ts$',
  '^src/campaigns/call-outcomes[.]ts$',
  '^src/campaigns/statuses[.]ts$',
];

/** Platform folders: the layers every area builds on. They know no area (the registries live in src/app/). */
const PLATFORM = [
  'http',
  'db',
  'events',
  'temporal',
  'outbound',
  'config',
  'logging',
  'crypto',
  'ratelimit',
  'common',
  'auth',
  'idempotency',
  'telemetry',
];
/** Area folders: one resource area each. Another area reaches one only through its index.ts. */
const AREAS = [
  'accounts',
  'agent-tests',
  'activity-log',
  'admin',
  'analytics',
  'call-analysis',
  'campaigns',
  'knowledge',
  'call-reports',
  'console-web',
  'docs',
  'health',
  'keys',
  'marketplace',
  'mcp',
  'oauth',
  'personas',
  'reviews',
  'secrets',
  'sessions',
  'telephony',
  'tools',
  'voice-workflows',
  'voices',
  'webhooks',
];
const folders = (names) => `^src/(${names.join('|')})/`;

/** Packages workflow code may import (besides @temporalio/workflow). */
const PURE_PACKAGES = ['^node_modules/@temporalio/(workflow|common)/', '^node_modules/jsep/'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles (type-only ones too) make modules order-dependent and areas inseparable.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'workflows-only-pure',
      severity: 'error',
      comment:
        'Workflow code is replayed deterministically in the workflow sandbox: it may import only ' +
        '@temporalio/workflow, other workflow files and the pure modules listed in .dependency-cruiser.cjs.',
      from: { path: ['^workflows/', ...PURE_MODULES] },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot: ['^workflows/', ...PURE_MODULES, ...PURE_PACKAGES],
      },
    },
    {
      name: 'context-imports-no-area',
      severity: 'error',
      comment:
        'The application context is built from platform layers only; an area that needs something in it ' +
        'declares the interface in src/common (as McpConnections and Speech are).',
      from: { path: '^src/common/context[.]ts$' },
      to: {
        pathNot: ['^src/(common|config|logging|db|crypto|auth|ratelimit|telemetry)/', '^node_modules/'],
      },
    },
    {
      name: 'platform-imports-no-area',
      severity: 'error',
      comment:
        'Platform folders are the layers areas build on: they import no area. What must know every area ' +
        "(the entity list, the outbox handlers, the worker's activities and workflows) lives in src/app/.",
      from: { path: folders(PLATFORM) },
      to: { path: [folders(AREAS), '^src/(app|bin)/', '^workflows/', '^activities/'] },
    },
    {
      name: 'area-imports-area-through-index',
      severity: 'error',
      comment:
        "An area reaches another area only through that area's index.ts (its public face), never a file " +
        'inside it. The pure modules workflow code may import are the exception: workflow code cannot load ' +
        'an index that reaches I/O, so they are imported as they are.',
      from: { path: `^src/(${AREAS.join('|')})/` },
      to: {
        path: folders(AREAS),
        pathNot: ['^src/$1/', '^src/[^/]+/index[.]ts$', ...PURE_MODULES],
      },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve to a file or package.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // sdk/ (the published client, a workspace of its own) is checked by its own build; its generated
    // files (schema.d.ts, operations.ts) exist only once built, so the tests' imports stop at its index
    doNotFollow: { path: ['node_modules', '^sdk/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
