/**
 * The end-of-call report (docs/sessions.md "End-of-call links"): the signed links to a session's
 * transcript and its call's recording that `session.ended` and `session.analyzed` carry. Other
 * areas reach it only through this file.
 */
export {
  checkReportLink,
  RECORDED_CALL_SQL,
  REPORT_LINK_PATHS,
  ReportLinkParams,
  ReportLinkQuery,
  type ReportLinks,
  reportLinks,
  SIGNED_LINK_NOTE,
} from './report-links';
