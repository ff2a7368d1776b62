/**
 * Twilio's request signature (`X-Twilio-Signature`), computed and checked as Twilio computes it
 * (https://www.twilio.com/docs/usage/webhooks/webhooks-security): HMAC-SHA1, keyed with the
 * account's auth token, of the full URL Twilio requested followed by each POST parameter's name and
 * value, sorted by name; base64. A request without a form body (a GET, the media stream's WebSocket
 * upgrade) is signed over its URL alone. The URL variants accepted are the official `twilio`
 * package's (`validateRequest` in twilio-node's webhooks.ts): Twilio may have signed the URL with or
 * without its default port, and a back end may see it percent-encoded. Pure: node:crypto only.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parse as parseQuery, stringify as stringifyQuery } from 'node:querystring';

/** The header that carries the signature (Node lower-cases header names). */
export const TWILIO_SIGNATURE_HEADER = 'x-twilio-signature';

/** A request's POST parameters by name; a parameter sent more than once has all its values. */
export type TwilioParams = Readonly<Record<string, string | readonly string[]>>;

/** A form body's parameters, a repeated name keeping all its values (`StatusCallbackEvent`). */
export function paramsOfForm(form: URLSearchParams): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const name of new Set(form.keys())) {
    // copied: an array of this module's realm (a test sandbox's checks see it as an array)
    const values = [...form.getAll(name)];
    params[name] = values.length === 1 ? values[0]! : values;
  }
  return params;
}

/** One parameter as signed: its name and value; a repeated one's distinct values sorted, each after the name. */
function signedParam(name: string, value: string | readonly string[]): string {
  if (typeof value === 'string') return name + value;
  return [...new Set(value)]
    .sort()
    .map((v) => name + v)
    .join('');
}

/** The signature Twilio sends for a request to `url` carrying `params` (none for a GET or an upgrade). */
export function twilioSignature(authToken: string, url: string, params: TwilioParams = {}): string {
  const names = Object.keys(params).sort();
  const data = names.reduce((signed, name) => signed + signedParam(name, params[name]!), url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

/** A URL split without normalizing it, so the path and query keep the characters Twilio signed. */
function splitUrl(url: string) {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(url);
  if (!match) return undefined;
  const [prefix, scheme, authority] = match as unknown as [string, string, string];
  const userInfoEnd = authority.lastIndexOf('@');
  const hostAndPort = authority.slice(userInfoEnd + 1);
  // a colon starts the port only after an IPv6 literal's closing bracket
  const portStart = hostAndPort.indexOf(':', hostAndPort.lastIndexOf(']') + 1);
  return {
    scheme,
    userInfo: authority.slice(0, userInfoEnd + 1),
    host: portStart === -1 ? hostAndPort : hostAndPort.slice(0, portStart),
    port: portStart === -1 ? '' : hostAndPort.slice(portStart),
    rest: url.slice(prefix.length),
  };
}

/** `url` with its scheme's default port written out (`:443` for https, `:80` otherwise) if it has none. */
function withPort(url: string): string {
  const parts = splitUrl(url);
  if (!parts || parts.port) return url;
  const port = parts.scheme.toLowerCase() === 'https://' ? ':443' : ':80';
  return parts.scheme + parts.userInfo + parts.host + port + parts.rest;
}

/** `url` without its port. */
function withoutPort(url: string): string {
  const parts = splitUrl(url);
  return parts ? parts.scheme + parts.userInfo + parts.host + parts.rest : url;
}

/** `url` with its query string re-encoded as Node's legacy `querystring` module does. */
function withLegacyQuery(url: string): string {
  const start = url.indexOf('?');
  if (start === -1 || start === url.length - 1) return url;
  return `${url.slice(0, start)}?${stringifyQuery(parseQuery(url.slice(start + 1)))}`;
}

/** The URLs Twilio may have signed for a request received at `url`, in the order twilio-node tries them. */
function signedUrlCandidates(url: string): string[] {
  const asReceived = [withoutPort(url), withPort(url)];
  let normalized: string;
  try {
    normalized = new URL(url).toString();
  } catch {
    return asReceived;
  }
  const normalizedVariants = [withoutPort(normalized), withPort(normalized)];
  return [...asReceived, ...normalizedVariants, ...normalizedVariants.map(withLegacyQuery)];
}

/** Whether two signatures are the same, in time independent of where they differ. */
function sameSignature(received: string, expected: string): boolean {
  const a = Buffer.from(received, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  // the expected length is fixed by the algorithm, not a secret: comparing it first leaks nothing
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether `signature` (the `X-Twilio-Signature` header; undefined when missing) is Twilio's for a
 * request received at `url` (the full public URL, query string included, as Twilio requested it)
 * with `params` (the form body; `{}` for a GET or a WebSocket upgrade). Agrees with the `twilio`
 * package's `validateRequest`.
 */
export function verifyTwilioSignature(
  authToken: string,
  signature: string | undefined,
  url: string,
  params: TwilioParams = {},
): boolean {
  if (!signature || !authToken) return false;
  return signedUrlCandidates(url).some((candidate) =>
    sameSignature(signature, twilioSignature(authToken, candidate, params)),
  );
}
