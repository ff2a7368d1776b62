import { NativeSelect } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorAlert, PageLoader } from '../../components/ui';

// the call's audio and stream code loads when the panel is first opened
const TestCallPanel = lazy(() => import('../test-call/TestCallPanel'));

/** The sessions page's test call: pick one of your personas (drafts too), then call it. */
export function SessionsTestCall() {
  const personas = useQuery({
    queryKey: ['personas'],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/personas')).personas,
  });
  const [picked, setPicked] = useState('');
  if (personas.isPending) return <PageLoader />;
  if (!personas.data) return <ErrorAlert error={personas.error} title="Your personas did not load" />;
  const persona = personas.data.find((p) => p.id === picked) ?? personas.data[0];
  if (!persona)
    return <ErrorAlert error="Create a persona first: a test call talks to one." title="No persona" />;
  return (
    <>
      <NativeSelect
        label="Persona to call"
        mb="xs"
        maw={420}
        value={persona.id}
        onChange={(e) => setPicked(e.currentTarget.value)}
        data={personas.data.map((p) => ({ value: p.id, label: `${p.name || p.id} (${p.status})` }))}
      />
      <Suspense fallback={<PageLoader />}>
        {/* a new persona is a new call: the panel (and any call under way) starts afresh */}
        <TestCallPanel key={persona.id} personaId={persona.id} label={persona.name || persona.id} />
      </Suspense>
    </>
  );
}
