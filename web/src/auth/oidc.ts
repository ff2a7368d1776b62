import * as oauth from 'oauth4webapi';

/**
 * Production sign-in: OpenID Connect authorization code flow with PKCE against `AUTH_ISSUER`, as a
 * public client (no secret in the browser) whose id is `AUTH_AUDIENCE`, the ID tokens' audience.
 */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  scope: string;
}

const PENDING_KEY = 'vp.console.oidc';

interface Pending {
  codeVerifier: string;
  state: string;
  nonce: string;
  returnTo: string;
}

export const callbackUrl = () => `${window.location.origin}/console/auth/callback`;

/** Plain http is accepted only for an identity provider on this machine (development, tests). */
function httpOptions(issuer: URL) {
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
  return loopback && issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
}

async function discover(settings: OidcSettings): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(settings.issuer);
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...httpOptions(issuer) });
  return oauth.processDiscoveryResponse(issuer, response);
}

/** Sends the browser to the identity provider's sign-in page. */
export async function startOidcSignIn(settings: OidcSettings, returnTo: string): Promise<void> {
  const as = await discover(settings);
  if (!as.authorization_endpoint) throw new Error('The identity provider has no authorization endpoint');
  const pending: Pending = {
    codeVerifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    returnTo,
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('client_id', settings.clientId);
  url.searchParams.set('redirect_uri', callbackUrl());
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', settings.scope);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(pending.codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', pending.state);
  url.searchParams.set('nonce', pending.nonce);
  window.location.assign(url.toString());
}

/** On the redirect back: checks state, redeems the code with the PKCE verifier, returns the ID token. */
export async function completeOidcSignIn(
  settings: OidcSettings,
  currentUrl: URL,
): Promise<{ idToken: string; returnTo: string }> {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!raw) throw new Error('No sign-in was started in this tab: sign in again');
  const pending = JSON.parse(raw) as Pending;
  const as = await discover(settings);
  const client: oauth.Client = { client_id: settings.clientId };
  const params = oauth.validateAuthResponse(as, client, currentUrl, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    callbackUrl(),
    pending.codeVerifier,
    httpOptions(new URL(settings.issuer)),
  );
  const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
    expectedNonce: pending.nonce,
    requireIdToken: true,
  });
  if (!result.id_token) throw new Error('The identity provider returned no ID token');
  return { idToken: result.id_token, returnTo: pending.returnTo };
}
