import { Alert, Anchor, Center, Loader, Paper, Stack, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { completeOidcSignIn } from '../auth/oidc';
import { startSession } from '../auth/session';
import { loadConsoleConfig } from '../config';
import { safeReturnTo } from './SignIn';

/** Where the OIDC provider sends the browser back: redeem the code, start the session, go on. */
export default function AuthCallbackPage() {
  const navigate = useNavigate();
  const [error, setError] = useState<string>();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return; // the code can be redeemed once (StrictMode runs effects twice)
    started.current = true;
    (async () => {
      const config = await loadConsoleConfig();
      if (config.auth.mode !== 'oidc')
        throw new Error('This console signs in with the local identity provider');
      const { idToken, returnTo } = await completeOidcSignIn(config.auth, new URL(window.location.href));
      startSession(idToken);
      navigate(safeReturnTo(returnTo), { replace: true });
    })().catch((e: Error) => setError(e.message));
  }, [navigate]);

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder p="xl" w="100%" maw={420}>
        <Stack>
          <Title order={1} size="h3">
            Signing in…
          </Title>
          {error ? (
            <Alert color="red" role="alert" title="Sign-in failed">
              {error}{' '}
              <Anchor component={Link} to="/sign-in">
                Try again
              </Anchor>
            </Alert>
          ) : (
            <Loader aria-label="Signing in" />
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
