export { accountPlanQuery, setAccountPlan } from './accounts.service';
export type { ConsoleAuth } from './console-auth';
export { accountSettings } from './settings.service';
