/** Operation classes of docs/api-contract.md "Rate limits", with their per-minute budgets. */
export const RATE_CLASSES = { read: 200, standard: 100, write: 50, expensive: 10 } as const;
export type RateClass = keyof typeof RATE_CLASSES;

export function defaultRateClass(method: string, path: string): RateClass {
  if (/\/(test|execute|trigger)$/.test(path)) return 'expensive';
  return method === 'get' ? 'read' : 'write';
}
