import { periodEnd, periodOf, periodStart } from '../src/marketplace/execution/metering';
import { inputProblems } from '../src/marketplace/execution/runtime';
import {
  DEFAULT_QUOTAS,
  isSemver,
  priceCents,
  quotaLimit,
  type ToolManifest,
  validateManifest,
} from '../src/marketplace/items/manifest';
import { manifestWarnings } from '../src/marketplace/items/manifest-warnings';
import { completeManifest } from './support/personas';

const ctx = {
  outbound: { allowPrivate: false, allowHttp: false },
  findVoice: (id: string) => (id === 'espeak-en-us-aria' ? { provider: 'espeak-ng' } : undefined),
};

const tool = (overrides: Record<string, unknown> = {}) => ({
  id: 'weather-now',
  name: 'Weather Now',
  version: '1.2.3',
  publisher: { id: 'pub_1', name: 'Acme' },
  description: { short: 'Current weather', long: 'Current weather for any city.' },
  execution: {
    runtime: { type: 'mcp', version: '1' },
    endpoint: 'https://mcp.example.com/mcp',
    toolName: 'weather',
  },
  interface: { llmDescription: 'Weather for a city' },
  ...overrides,
});

describe('marketplace manifest rules', () => {
  it('accepts a complete tool manifest and stores it as given', () => {
    const result = validateManifest('tool', tool(), ctx);
    expect(result).toEqual({ ok: true, manifest: tool() });
  });

  it('semantic versions: strict semver, no prefixes or loose forms', () => {
    for (const v of ['0.0.1', '1.2.3', '10.0.0-rc.1', '1.0.0+build.7', '2.0.0-alpha.1+sha.5114f85']) {
      expect([v, isSemver(v)]).toEqual([v, true]);
    }
    for (const v of ['1', '1.0', 'v1.0.0', '=1.0.0', '01.0.0', '1.0.0.0', 'latest', ' 1.0.0', '']) {
      expect([v, isSemver(v)]).toEqual([v, false]);
    }
  });

  it('reports every problem at once, with its path', () => {
    const result = validateManifest(
      'tool',
      tool({
        id: 'a',
        version: 'one',
        name: '',
        publisher: { id: 'pub_1' },
        description: { short: 'x'.repeat(141), long: '' },
        execution: { runtime: { type: 'http', version: '1' }, endpoint: 'http://10.0.0.1/run' },
        quotas: { free: -1, platinum: 3 },
        pricing: { model: 'subscription' },
      }),
      ctx,
    );
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors).toEqual(
      expect.arrayContaining([
        'manifest.id: must be a slug of 3–64 characters (lowercase letters, digits, single hyphens)',
        'manifest.version: must be a semantic version (MAJOR.MINOR.PATCH, e.g. 1.0.0; see semver.org)',
        'manifest.name: is required',
        expect.stringMatching(/^manifest\.publisher\.name: /),
        'manifest.description.short: must be at most 140 characters',
        'manifest.description.long: is required',
        'manifest.execution.endpoint: must be an https URL',
        expect.stringMatching(/^manifest\.quotas\.free: /),
        'manifest.quotas.platinum: unknown field',
        expect.stringMatching(/^manifest\.pricing\.model: /),
      ]),
    );
    // a private address is refused in production (the SSRF rules)
    const privateUrl = validateManifest(
      'tool',
      tool({
        execution: { runtime: { type: 'http', version: '1' }, endpoint: 'https://169.254.169.254/latest' },
      }),
      ctx,
    );
    expect(privateUrl).toEqual({
      ok: false,
      errors: ['manifest.execution.endpoint: must not point to a private or reserved address'],
    });
  });

  it('agents: common fields, a persona by the console rules, distinct tool ids; tools and interface are per type', () => {
    const agent = {
      id: 'ava-agent',
      name: 'Ava',
      displayName: 'Ava',
      version: '1.0.0',
      publisher: { id: 'pub_1', name: 'Acme' },
      description: { short: 'Support', long: 'Support agent.' },
      persona: completeManifest('ava'),
      tools: ['weather-now'],
    };
    expect(validateManifest('agent', agent, ctx).ok).toBe(true);
    const bad = validateManifest(
      'agent',
      {
        ...agent,
        tools: ['x-y', 'x-y'],
        persona: { ...completeManifest('ava'), personality: { warmth: 2 } },
        interface: {},
      },
      ctx,
    );
    expect(bad.ok ? [] : bad.errors).toEqual(
      expect.arrayContaining([
        'manifest.interface: unknown field',
        'manifest.tools.1: "x-y" is listed twice',
        'manifest.persona.personality.warmth: must be between 0 and 1',
      ]),
    );
    expect(validateManifest('tool', 'nope', ctx)).toEqual({
      ok: false,
      errors: ['manifest: must be an object'],
    });
  });

  it('warnings never block: pricing, quotas, listed-only runtimes, no input schema', () => {
    const m = tool({ execution: { runtime: { type: 'wasm', version: '1' } } }) as unknown as ToolManifest;
    expect(manifestWarnings('tool', m, ctx)).toEqual([
      'pricing: none given; the item is free',
      expect.stringMatching(
        /^quotas: none given; the defaults apply \(free 100, pro 10000, enterprise 1000000/,
      ),
      'execution.runtime.type: "wasm" is listed but not executable here (only mcp and http)',
      'interface.inputSchema: none given; arguments are not checked before a run',
    ]);
  });

  it('quotas per tier (manifest, else the defaults) and prices', () => {
    expect(DEFAULT_QUOTAS).toEqual({ free: 100, pro: 10_000, enterprise: 1_000_000 });
    expect(quotaLimit({ quotas: { free: 5 } }, 'free')).toBe(5);
    expect(quotaLimit({ quotas: { free: 5 } }, 'pro')).toBe(10_000);
    expect(quotaLimit({}, 'enterprise')).toBe(1_000_000);
    expect(priceCents({})).toBe(0);
    expect(priceCents({ pricing: { model: 'free' } })).toBe(0);
    expect(priceCents({ pricing: { model: 'per_execution', priceCents: 7 } })).toBe(7);
  });
});

describe('marketplace runs', () => {
  it('checks arguments against the input schema: required, top-level types, extra only when closed', () => {
    const schema = {
      type: 'object' as const,
      properties: { city: { type: 'string' }, days: { type: 'integer' }, units: {} },
      required: ['city'],
    };
    expect(inputProblems(schema, { city: 'Oslo', days: 3, extra: true })).toEqual([]);
    expect(inputProblems(schema, { days: 1.5 })).toEqual([
      'arguments.city: is required',
      'arguments.days: expected integer',
    ]);
    expect(inputProblems({ ...schema, additionalProperties: false }, { city: 'x', extra: 1 })).toEqual([
      'arguments.extra: unknown argument',
    ]);
    expect(inputProblems(undefined, { anything: 1 })).toEqual([]);
  });

  it('calendar months (UTC) for usage and quotas', () => {
    expect(periodOf(new Date('2026-12-31T23:59:59Z'))).toBe('2026-12');
    expect(periodEnd('2026-12').toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(periodStart('2026-02').toISOString()).toBe('2026-02-01T00:00:00.000Z');
  });
});
