import { Alert } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { isWaitAnswer, retryDelayMs } from '../api/retry';

interface Waiting {
  /** The query and its failure count: a new failure is a new wait. */
  key: string;
  until: number;
  status: number;
}

/**
 * While a page's data waits out a 429 or a 503 before asking again, says so with a countdown
 * ("Retrying in 12 s"), so a page never sits on a bare spinner.
 */
export function RetryNotice() {
  const cache = useQueryClient().getQueryCache();
  const [now, setNow] = useState(() => Date.now());
  const [waiting, setWaiting] = useState<Waiting | null>(null);
  useEffect(() => {
    const check = () => {
      const query = cache
        .getAll()
        .find(
          (q) =>
            q.state.fetchStatus === 'fetching' &&
            q.state.fetchFailureCount > 0 &&
            isWaitAnswer(q.state.fetchFailureReason),
        );
      if (!query || !isWaitAnswer(query.state.fetchFailureReason)) return setWaiting(null);
      const error = query.state.fetchFailureReason;
      const key = `${query.queryHash}:${query.state.fetchFailureCount}`;
      const delay = retryDelayMs(query.state.fetchFailureCount - 1, error);
      setWaiting((w) => (w?.key === key ? w : { key, until: Date.now() + delay, status: error.status }));
    };
    check();
    const unsubscribe = cache.subscribe(check);
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => {
      unsubscribe();
      clearInterval(tick);
    };
  }, [cache]);
  if (!waiting) return null;
  const seconds = Math.max(0, Math.ceil((waiting.until - now) / 1000));
  return (
    <Alert
      role="status"
      color="yellow"
      mb="md"
      title={waiting.status === 429 ? 'Too many requests for now' : 'The service is busy'}
    >
      {seconds > 0 ? `Retrying in ${seconds} s.` : 'Retrying now.'}
    </Alert>
  );
}
