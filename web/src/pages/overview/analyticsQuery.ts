import type { Environment } from '../../api/client';
import type { Period } from './FigureCards';

/** What every analytics figure of the overview is for: a period of one environment. */
export interface AnalyticsQuery {
  period: Period;
  environment: Environment;
}
