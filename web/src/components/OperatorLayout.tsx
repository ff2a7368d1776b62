import { AppShell, Button, Group, NavLink, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect } from 'react';
import { Navigate, Outlet, NavLink as RouterLink, useLocation, useNavigate } from 'react-router';
import { endOperatorSession, useOperatorToken } from '../auth/operator';
import { useSession } from '../auth/session';
import { ErrorBoundary } from './ErrorBoundary';
import { Layout } from './Layout';
import { PageLoader } from './ui';

/**
 * The frame of an operator signed in with the admin token alone (no developer account): the review
 * queue and sign-out. The token is forgotten on sign-out and when the tab closes.
 */
function OperatorLayout() {
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signOut = () => {
    queryClient.clear();
    navigate('/operator/sign-out');
  };
  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: true } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="xs">
          <Title order={2} size="h4" style={{ whiteSpace: 'nowrap' }}>
            Voice Platform
          </Title>
          <Group gap="xs" wrap="nowrap">
            <Text size="sm" data-testid="account-email">
              Operator
            </Text>
            <Button variant="default" size="xs" onClick={signOut}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Console sections">
        <NavLink component={RouterLink} to="/reviews" label="Reviews" active />
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense fallback={<PageLoader />}>
          <ErrorBoundary resetKey={location.pathname} what="This page">
            <Outlet />
          </ErrorBoundary>
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}

/**
 * Signing out as operator (outside the review queue's frame, which would send a signed-out tab to
 * the developer sign-in): the token is forgotten, then the operator sign-in page opens.
 */
export function OperatorSignOut() {
  const token = useOperatorToken();
  useEffect(() => endOperatorSession(), []);
  return token ? <PageLoader /> : <Navigate to="/operator/sign-in" replace />;
}

/**
 * The review queue's frame: the console's own for a signed-in developer (a reviewer, or with the
 * admin token pasted too), the operator's for the admin token alone; else off to sign in.
 */
export function ReviewsFrame() {
  const session = useSession();
  const operator = useOperatorToken();
  const location = useLocation();
  if (session) return <Layout />;
  if (operator) return <OperatorLayout />;
  const returnTo = location.pathname + location.search;
  return <Navigate to={`/sign-in?returnTo=${encodeURIComponent(returnTo)}`} replace />;
}
