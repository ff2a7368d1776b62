export { type ContextActivityRow, contextActivitiesQuery, contextActivityOf } from './activities.service';
