/** Values the global setup hands to every test file (through process.env: tests run in band). */
export const TEST_ENV = {
  databaseUrl: () => required('VP_TEST_DATABASE_URL'),
  temporalAddress: () => required('VP_TEST_TEMPORAL_ADDRESS'),
  taskQueue: () => required('VP_TEST_TASK_QUEUE'),
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest (global setup)`);
  return value;
}

/** The server used for test databases: TEST_DATABASE_SERVER_URL, else the local PostgreSQL. */
export function testServerUrl(): string {
  return process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export function databaseUrl(name: string): string {
  const url = new URL(testServerUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fixed test encryption key (32 zero-free bytes, base64). */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

/** Configuration shared by the run's worker and every test app: short retry delays and timeouts. */
export const TEST_WEBHOOK_ENV = {
  WEBHOOK_RETRY_DELAYS: '0,1,1,1,1',
  WEBHOOK_TIMEOUT_MS: '2000',
  // no test calls a real carrier: their APIs are a closed local port unless a test gives its own
  TWILIO_API_BASE_URL: 'http://127.0.0.1:9',
  TELNYX_API_BASE_URL: 'http://127.0.0.1:9',
  CARRIER_TIMEOUT_MS: '2000',
  CALL_UNCONFIRMED_WAIT_S: '5',
};
