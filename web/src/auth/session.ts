import { storedValue, useStoredValue } from '../store';

/** The signed-in console session: the identity provider's ID token (sent as the bearer of /api/v1). */
export interface Session {
  idToken: string;
  email: string | null;
  /** Milliseconds since the epoch (the token's `exp`). */
  expiresAt: number;
}

/** In sessionStorage: the token lives as long as the tab, and another tab signs in on its own. */
const sessionStore = storedValue<Session | null>(() => sessionStorage, 'vp.console.session', null);
/** Why the last session ended (shown on the sign-in page), e.g. an expired token. */
export const signOutReason = storedValue<string | null>(
  () => sessionStorage,
  'vp.console.signOutReason',
  null,
);

function claims(idToken: string): Record<string, unknown> {
  const payload = idToken.split('.')[1] ?? '';
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0))));
}

export function startSession(idToken: string): Session {
  const c = claims(idToken);
  const session: Session = {
    idToken,
    email: typeof c.email === 'string' ? c.email : null,
    expiresAt: typeof c.exp === 'number' ? c.exp * 1000 : Date.now() + 3600_000,
  };
  sessionStore.set(session);
  signOutReason.set(null);
  return session;
}

export function currentSession(): Session | null {
  const session = sessionStore.get();
  return session && session.expiresAt > Date.now() ? session : null;
}

export function useSession(): Session | null {
  const session = useStoredValue(sessionStore);
  return session && session.expiresAt > Date.now() ? session : null;
}

export function endSession(reason?: string): void {
  sessionStore.set(null);
  signOutReason.set(reason ?? null);
}
