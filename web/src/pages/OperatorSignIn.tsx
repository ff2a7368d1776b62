import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { operatorToken, useOperatorToken } from '../auth/operator';
import { signOutReason } from '../auth/session';
import { useStoredValue } from '../store';
import { safeReturnTo } from './SignIn';

/** Asks the operator API whether the token is ADMIN_TOKEN: its error message when it is not. */
async function refusal(token: string): Promise<string | null> {
  const res = await fetch('/api/admin/reviews', { headers: { Authorization: `Bearer ${token}` } });
  if (res.ok) return null;
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  return body.error ?? `The operator API answered HTTP ${res.status}`;
}

/**
 * The operator's sign-in: paste the ADMIN_TOKEN; it is checked against the operator API and kept in
 * sessionStorage (this tab only) for the review queue (docs/console.md "The review queue").
 */
export default function OperatorSignInPage() {
  const token = useOperatorToken();
  const [params] = useSearchParams();
  const returnTo = safeReturnTo(params.get('returnTo') ?? '/reviews');
  const reason = useStoredValue(signOutReason);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  if (token) return <Navigate to={returnTo} replace />;
  const signIn = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const refused = await refusal(value.trim());
      if (refused) setError(refused);
      else {
        signOutReason.set(null);
        operatorToken.set(value.trim());
      }
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420}>
        <form onSubmit={signIn}>
          <Stack>
            <Title order={1} size="h2">
              Operator sign-in
            </Title>
            <Text size="sm" c="dimmed">
              Paste the platform's admin token (ADMIN_TOKEN) to review personas and marketplace items. It is
              kept in this tab only and forgotten when the tab closes.
            </Text>
            {reason ? (
              <Alert color="yellow" role="status">
                {reason}
              </Alert>
            ) : null}
            {error ? (
              <Alert color="red" role="alert" title="Sign-in failed">
                {error}
              </Alert>
            ) : null}
            <PasswordInput
              label="Admin token"
              required
              autoComplete="off"
              value={value}
              onChange={(e) => setValue(e.currentTarget.value)}
              data-autofocus
            />
            <Button type="submit" loading={busy}>
              Sign in as operator
            </Button>
            <Anchor component={Link} to="/sign-in" size="sm">
              ← Developer sign-in
            </Anchor>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
