import {
  AppShell,
  Burger,
  Button,
  Group,
  NavLink,
  SegmentedControl,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect } from 'react';
import { Outlet, NavLink as RouterLink, useLocation, useNavigate } from 'react-router';
import {
  accountFailed,
  api,
  type Environment,
  environmentStore,
  setAccount,
  signOut,
  unwrap,
} from '../api/client';
import { useOperatorToken } from '../auth/operator';
import { useStoredValue } from '../store';
import { ErrorBoundary } from './ErrorBoundary';
import { RetryNotice } from './RetryNotice';
import { ErrorAlert, PageLoader } from './ui';

const NAV = [
  { to: '/', label: 'Overview', end: true },
  { to: '/keys', label: 'API keys' },
  { to: '/personas', label: 'Personas' },
  { to: '/voices', label: 'Voices' },
  { to: '/tools', label: 'Tools' },
  { to: '/providers', label: 'Providers' },
  { to: '/activities', label: 'Activities' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/workflows', label: 'Workflows' },
  { to: '/sessions', label: 'Sessions' },
  { to: '/phone-numbers', label: 'Phone numbers' },
  { to: '/calls', label: 'Calls' },
  { to: '/campaigns', label: 'Campaigns' },
  { to: '/knowledge', label: 'Knowledge' },
  { to: '/marketplace', label: 'Marketplace' },
];

/** The header bar: the phone menu's button, the product's name, environment, account and sign-out. */
function ConsoleHeader(props: { menuOpened: boolean; onMenu(): void; email: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const environment = useStoredValue(environmentStore);
  const changeEnvironment = (value: string) => {
    environmentStore.set(value as Environment);
    queryClient.invalidateQueries();
  };
  const onSignOut = async () => {
    await signOut();
    queryClient.clear();
    navigate('/sign-in');
  };
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="xs">
      <Group gap="xs" wrap="nowrap">
        <Burger
          opened={props.menuOpened}
          onClick={props.onMenu}
          hiddenFrom="sm"
          size="sm"
          aria-label={props.menuOpened ? 'Close navigation' : 'Open navigation'}
        />
        <Title order={2} size="h4" style={{ whiteSpace: 'nowrap' }} visibleFrom="xs">
          Voice Platform
        </Title>
      </Group>
      <Group gap="xs" wrap="nowrap">
        <SegmentedControl
          size="xs"
          value={environment}
          onChange={changeEnvironment}
          aria-label="Environment"
          data={[
            { value: 'live', label: 'Live' },
            { value: 'test', label: 'Test' },
          ]}
        />
        <Text size="sm" visibleFrom="md" data-testid="account-email">
          {props.email}
        </Text>
        <Button variant="default" size="xs" onClick={onSignOut}>
          Sign out
        </Button>
      </Group>
    </Group>
  );
}

/** The review queue's entry: shown to operators (the admin token) and reviewers only. */
const REVIEWS_NAV: (typeof NAV)[number] = { to: '/reviews', label: 'Reviews' };

/** The console's sections, the current one marked. */
function ConsoleNav({ reviews }: { reviews: boolean }) {
  const location = useLocation();
  return (
    <Stack gap={2}>
      {(reviews ? [...NAV, REVIEWS_NAV] : NAV).map((item) => (
        <NavLink
          key={item.to}
          component={RouterLink}
          to={item.to}
          end={item.end}
          label={item.label}
          active={item.end ? location.pathname === item.to : location.pathname.startsWith(item.to)}
        />
      ))}
    </Stack>
  );
}

/** The signed-in frame: header (environment, account, sign out), navigation, and the page. */
export function Layout() {
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  const queryClient = useQueryClient();
  const me = useQuery({
    queryKey: ['me'],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/me')),
  });
  const operator = useOperatorToken();
  if (me.data) setAccount(me.data);
  else if (me.error) accountFailed(me.error);

  // close the phone menu after navigating
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each navigation
  useEffect(() => close(), [location.pathname, close]);

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <ConsoleHeader menuOpened={opened} onMenu={toggle} email={me.data?.email ?? ''} />
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Console sections">
        <ConsoleNav reviews={operator !== null || me.data?.reviewer === true} />
      </AppShell.Navbar>
      <AppShell.Main>
        {me.error && !me.data ? (
          <>
            <ErrorAlert error={me.error} title="Your account did not load" />
            <Button mb="md" variant="default" onClick={() => queryClient.invalidateQueries()}>
              Try again
            </Button>
          </>
        ) : null}
        <RetryNotice />
        {/* pages render at once; their platform and marketplace calls wait for the account */}
        <Suspense fallback={<PageLoader />}>
          {/* a page that fails to render says so; the frame stays, and the next page starts afresh */}
          <ErrorBoundary
            resetKey={location.pathname}
            what="This page"
            kept="The rest of the console still works: open another page, or try this one again."
          >
            <Outlet />
          </ErrorBoundary>
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
