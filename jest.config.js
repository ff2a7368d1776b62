/**
 * Two tiers (jest projects), both run by `npm test`:
 * - `unit`: `*.unit.test.ts`, which need neither PostgreSQL nor Temporal (`npm run test:unit`).
 * - `integration`: every other `*.test.ts`, against the real PostgreSQL database and Temporal dev
 *   server the global setup starts once per run (`npm run test:integration`).
 * globalSetup/globalTeardown are set on the integration project only, so jest runs them only when
 * that project is selected.
 */
const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
    // an ES module the platform requires (Node's require(esm)); jest's require needs it as CommonJS
    '/node_modules/@echogarden/speex-resampler-wasm/.+\\.js$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@echogarden/speex-resampler-wasm/)'],
};

/** @type {import('jest').Config} */
module.exports = {
  // a global option: jest-circus reads the root config's, not a project's
  testTimeout: 60_000,
  watchman: false,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['**/*.unit.test.ts'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['**/*.test.ts'],
      // the cluster tier (jest.cluster.config.js) starts its own topology
      testPathIgnorePatterns: ['/node_modules/', '\\.unit\\.test\\.ts$', '/test/cluster/'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
