export { setAccountPlan } from './accounts.service';
export type { ConsoleAuth } from './console-auth';
