import { Alert, Anchor, Button, Center, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useEffect, useState } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { signOutReason, startSession, useSession } from '../auth/session';
import { type ConsoleConfig, loadConsoleConfig } from '../config';
import { useStoredValue } from '../store';

/** Only paths inside the console are followed after sign-in (no open redirect). */
export function safeReturnTo(value: string | null): string {
  return value?.startsWith('/') && !value.startsWith('//') && !value.includes('\\') ? value : '/';
}

type OidcAuth = Extract<ConsoleConfig['auth'], { mode: 'oidc' }>;

/** Development sign-in: the local identity provider signs an ID token for the email typed. */
function DevSignInForm({ onError }: { onError(message: string | undefined): void }) {
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const devSignIn = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    onError(undefined);
    try {
      const res = await fetch('/console/auth/dev-token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(body.validationErrors?.join('; ') ?? body.error ?? `HTTP ${res.status}`);
      startSession(body.idToken);
    } catch (e) {
      onError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={devSignIn}>
      <Stack>
        <Text size="sm" c="dimmed">
          Development sign-in: the local identity provider signs an ID token for the email you type.
        </Text>
        <TextInput
          label="Email"
          type="email"
          required
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          data-autofocus
        />
        <Button type="submit" loading={busy}>
          Sign in
        </Button>
      </Stack>
    </form>
  );
}

/** OIDC sign-in: off to the provider (authorization code with PKCE), back to returnTo. */
function OidcSignIn(props: { auth: OidcAuth; returnTo: string; onError(message: string | undefined): void }) {
  const [busy, setBusy] = useState(false);
  const oidcSignIn = async () => {
    setBusy(true);
    props.onError(undefined);
    try {
      // the OIDC client is loaded only where it is used
      const { startOidcSignIn } = await import('../auth/oidc');
      await startOidcSignIn(props.auth, props.returnTo);
    } catch (e) {
      props.onError((e as Error).message);
      setBusy(false);
    }
  };
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        You will sign in with {new URL(props.auth.issuer).host} and come back here.
      </Text>
      <Button onClick={oidcSignIn} loading={busy}>
        Continue to sign-in
      </Button>
    </Stack>
  );
}

/**
 * Sign-in: with the local development identity provider, type an email and get an ID token; with
 * an OIDC provider (`AUTH_ISSUER`), go there (authorization code with PKCE) and come back.
 */
export function SignInPage() {
  const session = useSession();
  const [params] = useSearchParams();
  const returnTo = safeReturnTo(params.get('returnTo'));
  const reason = useStoredValue(signOutReason);
  const [config, setConfig] = useState<ConsoleConfig>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    loadConsoleConfig().then(setConfig, (e: Error) => setError(e.message));
  }, []);

  if (session) return <Navigate to={returnTo} replace />;
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420}>
        <Stack>
          <Title order={1} size="h2">
            Sign in to the Voice Platform console
          </Title>
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
          {config?.auth.mode === 'dev' ? (
            <DevSignInForm onError={setError} />
          ) : config?.auth.mode === 'oidc' ? (
            <OidcSignIn auth={config.auth} returnTo={returnTo} onError={setError} />
          ) : null}
          <Anchor component={Link} to="/operator/sign-in" size="sm">
            Operator? Sign in with the admin token
          </Anchor>
        </Stack>
      </Paper>
    </Center>
  );
}
