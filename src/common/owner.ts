/** The two environments every key, resource and event belongs to: `live` (`pk_live_`) and `test` (`pk_test_`, the sandbox). */
export const ENVIRONMENTS = ['live', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** The owner of a platform resource: an account in one environment. */
export interface Owner {
  accountId: string;
  environment: Environment;
}
