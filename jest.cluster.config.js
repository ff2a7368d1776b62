/**
 * The cluster tier (`npm run test:cluster`, docs/cluster.md): `test/cluster/`, against the production
 * topology each test file starts itself (a Temporal cluster built from source on PostgreSQL, the
 * platform's processes from `dist/`). Not part of `npm test`; `.ci/run` runs it after the main suite.
 */
const integration = require('./jest.config.js').projects.find((p) => p.displayName === 'integration');

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 600_000,
  watchman: false,
  testEnvironment: integration.testEnvironment,
  roots: integration.roots,
  transform: integration.transform,
  transformIgnorePatterns: integration.transformIgnorePatterns,
  displayName: 'cluster',
  testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
};
