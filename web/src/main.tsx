import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App';
import { ApiCallError } from './api/client';
import { theme } from './theme';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      refetchOnWindowFocus: false,
      // a 4xx will not get better by asking again, except a rate limit: once, after its Retry-After
      retry: (count, error) => {
        if (error instanceof ApiCallError && error.status === 429)
          return count < 1 && (error.retryAfter ?? 60) <= 30;
        return !(error instanceof ApiCallError && error.status < 500) && count < 2;
      },
      retryDelay: (count, error) =>
        error instanceof ApiCallError && error.retryAfter !== null
          ? error.retryAfter * 1000
          : Math.min(1000 * 2 ** count, 8000),
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider
      theme={theme}
      cssVariablesResolver={(t) => ({
        variables: {},
        light: { '--mantine-color-dimmed': t.colors.gray[7] },
        dark: {},
      })}
    >
      <QueryClientProvider client={queryClient}>
        <BrowserRouter basename="/console">
          <App />
        </BrowserRouter>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
