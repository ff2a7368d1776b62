import { Anchor, MultiSelect } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, environmentStore, unwrap } from '../../../api/client';
import { useStoredValue } from '../../../store';
import { useField } from './FormContext';

/** `knowledge.bases`: the knowledge bases the agent answers from (docs/knowledge.md "In a turn"). */
export function KnowledgeBasesField() {
  const field = useField('knowledge.bases');
  const environment = useStoredValue(environmentStore);
  const bases = useQuery({
    queryKey: ['knowledge-bases', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/knowledge-bases', { params: { query: { limit: 200 } } })).data,
  });
  const picked = Array.isArray(field.value)
    ? field.value.filter((v): v is string => typeof v === 'string')
    : [];
  const known = new Set((bases.data ?? []).map((b) => b.id));
  const data = [
    ...(bases.data ?? []).map((b) => ({ value: b.id, label: b.name })),
    ...picked.filter((id) => !known.has(id)).map((id) => ({ value: id, label: `${id} (not found)` })),
  ];
  return (
    <MultiSelect
      id={field.id}
      label="Knowledge bases"
      description={
        <>
          The agent answers from these documents (at most 10):{' '}
          <Anchor component={Link} to="/knowledge" size="xs" underline="always">
            Knowledge
          </Anchor>
        </>
      }
      placeholder={bases.isPending ? 'Loading knowledge bases…' : 'None: the agent uses no documents'}
      data={data}
      value={picked}
      onChange={(next) => field.set(next.length ? next : undefined)}
      onBlur={field.touch}
      maxValues={10}
      searchable
      clearable
      error={field.error ?? (bases.error ? 'The knowledge bases did not load' : undefined)}
      disabled={field.disabled}
    />
  );
}
