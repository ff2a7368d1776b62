import { storedValue, useStoredValue } from '../store';

/**
 * The operator's ADMIN_TOKEN, pasted on the operator sign-in page (/operator/sign-in). Kept in
 * sessionStorage only: this tab, gone when it closes; never in localStorage or a cookie. The console
 * sends it to the operator API (/api/admin) alone.
 */
export const operatorToken = storedValue<string | null>(
  () => sessionStorage,
  'vp.console.operatorToken',
  null,
);

export function useOperatorToken(): string | null {
  return useStoredValue(operatorToken);
}

/** Forgets the operator's token (signing out, or the API refused it). */
export function endOperatorSession(): void {
  operatorToken.set(null);
}
