export { accountPlanQuery, setAccountPlan } from './accounts.service';
export type { ConsoleAuth } from './console-auth';
export {
  isReviewer,
  listReviewers,
  type Reviewer,
  type ReviewerMark,
  reviewerAuthenticator,
  setAccountReviewer,
} from './reviewers';
export { accountSettings } from './settings.service';
