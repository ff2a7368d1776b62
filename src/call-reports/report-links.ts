import { z } from 'zod';
import type { CoreContext } from '../common/context';
import { type LinkTarget, linkBaseUrl, linkSigner } from '../crypto/signed-links';
import { forbidden } from '../http/errors';

/**
 * The end-of-call links (docs/sessions.md "End-of-call links"): `session.ended` and
 * `session.analyzed` carry signed, expiring URLs of the session's transcript and of its call's
 * recording, which open without an API key. The paths are on the platform API's public root: the
 * sessions area serves the transcript's, the telephony area the recording's.
 */
export const REPORT_LINK_PATHS = {
  transcript: '/links/sessions/:id/transcript',
  recording: '/links/calls/:id/recording',
} as const;
export type ReportLinkKind = keyof typeof REPORT_LINK_PATHS;

/** The platform API's root, where the link paths are. */
const PLATFORM_ROOT = '/api/v2/developers';

/** What a link of `kind` to `id` opens: the resource it names, of `accountId`. */
const targetOf = (kind: ReportLinkKind, id: string, accountId: string): LinkTarget => ({
  resource: `${kind}:${id}`,
  accountId,
});

export const ReportLinkParams = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .meta({ description: 'The session (`sess_…`) or call (`call_…`) the link names' }),
});

export const ReportLinkQuery = z.strictObject({
  expires: z
    .string()
    .regex(/^[0-9]{1,12}$/, 'must be unix seconds')
    .transform(Number)
    .meta({ description: 'When the link expires (unix seconds), as the event gave it' }),
  signature: z
    .string()
    .regex(/^[A-Za-z0-9]{1,128}$/, 'must be the link’s signature')
    .meta({ description: 'The link’s signature (hex HMAC-SHA256), as the event gave it' }),
});
export type ReportLinkQueryInput = z.output<typeof ReportLinkQuery>;

/** Said of every signed link route: how it opens, and how it refuses. */
export const SIGNED_LINK_NOTE =
  'Signed link of an end-of-call event (`session.ended`, `session.analyzed`): no API key; `expires` and `signature` as the event gave them. A signature that is not this link’s, or an expired link, is a 403 (`FORBIDDEN`) and nothing is served.';

/** An end-of-call event's links. */
export interface ReportLinks {
  transcriptUrl: string;
  /** Null when the session had no phone call, or did not record it. */
  recordingUrl: string | null;
  linksExpireAt: string;
}

/**
 * The phone call whose recording a session's report links to: the session's call, when the session
 * records (a call records when its session does) or the call's recording began. Binds the session id.
 */
export const RECORDED_CALL_SQL = `select c.id from calls c join sessions s on s.id = c.session_id
  where c.session_id = ? and (c.recorded_at is not null or s.recording)
  order by c.created_at limit 1`;

/** The signed links of a session's end-of-call events, expiring LINK_TTL_S from `now`. */
export function reportLinks(
  deps: Pick<CoreContext, 'config' | 'encryptor'>,
  r: { accountId: string; sessionId: string; callId: string | null },
  now = Date.now(),
): ReportLinks {
  const signer = linkSigner(deps);
  const expires = signer.expiresAt(now);
  const url = (kind: ReportLinkKind, id: string) =>
    `${linkBaseUrl(deps.config)}${PLATFORM_ROOT}${REPORT_LINK_PATHS[kind].replace(':id', id)}?${signer.query(
      targetOf(kind, id, r.accountId),
      expires,
    )}`;
  return {
    transcriptUrl: url('transcript', r.sessionId),
    recordingUrl: r.callId ? url('recording', r.callId) : null,
    linksExpireAt: new Date(expires * 1000).toISOString(),
  };
}

/**
 * Checks a link of `kind` to `id` (whose account is `accountId`; undefined: no such resource) before
 * anything of it is read: a signature that is not this link's, a resource that does not exist, or
 * an expired link is a 403 (FORBIDDEN), the same for a resource that does not exist as for a forged
 * signature.
 */
export function checkReportLink(
  deps: Pick<CoreContext, 'config' | 'encryptor'>,
  kind: ReportLinkKind,
  id: string,
  accountId: string | undefined,
  query: ReportLinkQueryInput,
): void {
  const checked = accountId
    ? linkSigner(deps).check(targetOf(kind, id, accountId), query.expires, query.signature)
    : 'invalid';
  if (checked === 'expired')
    throw forbidden('This link has expired: a newer event has fresh links, or use the API with a key');
  if (checked !== 'valid') throw forbidden('This link is not valid: its signature does not match it');
}
