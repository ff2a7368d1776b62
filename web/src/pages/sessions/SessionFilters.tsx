import { Button, Checkbox, Group, NativeSelect, SegmentedControl, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useRef, useState } from 'react';

export type StatusFilter = 'all' | 'active' | 'ended';

/** What the sessions list is narrowed to; empty strings mean "any". */
export interface SessionFilterValues {
  status: StatusFilter;
  personaId: string;
  userId: string;
  /** A day (YYYY-MM-DD), inclusive, in UTC. */
  from: string;
  to: string;
  /** Words of a turn or of a reply. */
  q: string;
  /** Also the sessions of agent-test runs, which the list leaves out by default. */
  testRuns: boolean;
}

export const NO_FILTERS: SessionFilterValues = {
  status: 'all',
  personaId: '',
  userId: '',
  from: '',
  to: '',
  q: '',
  testRuns: false,
};

/** The filters as the list's query: a day range becomes the start and end of those days in UTC. */
export function sessionsQuery(f: SessionFilterValues) {
  return {
    status: f.status === 'all' ? undefined : f.status,
    personaId: f.personaId || undefined,
    userId: f.userId.trim() || undefined,
    from: f.from ? `${f.from}T00:00:00Z` : undefined,
    to: f.to ? `${f.to}T23:59:59.999Z` : undefined,
    q: f.q.trim() || undefined,
    includeTestRuns: f.testRuns ? ('true' as const) : undefined,
  };
}

/**
 * The sessions list's filters: status, persona, user, a day range and a transcript search. Typed
 * text (user, search) reaches the list after a pause, not at every key.
 */
export function SessionFilters(props: {
  value: SessionFilterValues;
  onChange(next: SessionFilterValues): void;
  personas: { id: string; name: string }[];
}) {
  const { value, onChange, personas } = props;
  const [typed, setTyped] = useState({ userId: value.userId, q: value.q });
  const [settled] = useDebouncedValue(typed, 350);
  // only a change of the typed text (once settled) applies it; the other filters pass through `latest`
  const latest = useRef({ value, onChange });
  latest.current = { value, onChange };
  useEffect(() => {
    const { value: now, onChange: apply } = latest.current;
    if (settled.userId !== now.userId || settled.q !== now.q) apply({ ...now, ...settled });
  }, [settled]);
  const set = (patch: Partial<SessionFilterValues>) => onChange({ ...value, ...patch });
  const clear = () => {
    setTyped({ userId: '', q: '' });
    onChange(NO_FILTERS);
  };
  const filtered = JSON.stringify({ ...value, ...typed }) !== JSON.stringify(NO_FILTERS);
  return (
    <Group gap="sm" align="flex-end" mb="sm" wrap="wrap" role="search" aria-label="Filter sessions">
      <SegmentedControl
        size="xs"
        aria-label="Session status"
        value={value.status}
        onChange={(v) => set({ status: v as StatusFilter })}
        data={['all', 'active', 'ended']}
      />
      <NativeSelect
        size="xs"
        label="Persona"
        value={value.personaId}
        onChange={(e) => set({ personaId: e.currentTarget.value })}
        data={[{ value: '', label: 'Any persona' }, ...personas.map((p) => ({ value: p.id, label: p.name }))]}
      />
      <TextInput
        size="xs"
        label="User"
        placeholder="user id"
        value={typed.userId}
        onChange={(e) => setTyped({ ...typed, userId: e.currentTarget.value })}
      />
      <TextInput
        size="xs"
        type="date"
        label="From"
        value={value.from}
        onChange={(e) => set({ from: e.currentTarget.value })}
      />
      <TextInput
        size="xs"
        type="date"
        label="To"
        value={value.to}
        onChange={(e) => set({ to: e.currentTarget.value })}
      />
      <TextInput
        size="xs"
        type="search"
        label="Search transcripts"
        placeholder="words said or replied"
        value={typed.q}
        onChange={(e) => setTyped({ ...typed, q: e.currentTarget.value })}
        maxLength={200}
      />
      <Checkbox
        size="xs"
        label="Test runs"
        title="Also the sessions of agent-test runs"
        checked={value.testRuns}
        onChange={(e) => set({ testRuns: e.currentTarget.checked })}
      />
      {filtered ? (
        <Button size="xs" variant="subtle" onClick={clear}>
          Clear filters
        </Button>
      ) : null}
    </Group>
  );
}
