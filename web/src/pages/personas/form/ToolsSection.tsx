import { Fieldset, MultiSelect, Stack, Text } from '@mantine/core';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, ENVIRONMENT_HEADER, type Environment, unwrap } from '../../../api/client';
import { ErrorAlert } from '../../../components/ui';
import { useInstallations } from '../../marketplace/queries';
import { useField } from './FormContext';

/** One entry of manifest `tools` (docs/personas.md "Tools"). */
interface ToolRef {
  type: 'tool' | 'mcp_server' | 'marketplace';
  id: string;
  tools?: string[];
}

const ENVIRONMENTS: Environment[] = ['test', 'live'];
const keyOf = (ref: Pick<ToolRef, 'type' | 'id'>) => `${ref.type}:${ref.id}`;
const asRefs = (value: unknown): ToolRef[] =>
  Array.isArray(value)
    ? value.filter(
        (r): r is ToolRef =>
          r !== null && typeof r === 'object' && typeof r.type === 'string' && typeof r.id === 'string',
      )
    : [];

/** An environment's custom tools and MCP servers (both environments are offered: a persona is the account's). */
const environmentToolsQuery = (environment: Environment) =>
  queryOptions({
    queryKey: ['persona-tool-choices', environment],
    queryFn: async () => {
      const headers = { [ENVIRONMENT_HEADER]: environment };
      const [tools, servers] = await Promise.all([
        api.GET('/api/v2/developers/tools', { params: { query: { limit: 100 } }, headers }),
        api.GET('/api/v2/developers/mcp-servers', { params: { query: { limit: 100 } }, headers }),
      ]);
      return { tools: unwrap(tools).data, servers: unwrap(servers).data };
    },
  });

/** The choices, grouped: custom tools and MCP servers of each environment, installed marketplace tools. */
function useToolChoices() {
  const test = useQuery(environmentToolsQuery('test'));
  const live = useQuery(environmentToolsQuery('live'));
  const installs = useInstallations();
  const groups = ENVIRONMENTS.flatMap((environment) => {
    const data = (environment === 'test' ? test : live).data;
    return [
      {
        group: `Custom tools (${environment})`,
        items: (data?.tools ?? []).map((t) => ({ value: keyOf({ type: 'tool', id: t.id }), label: t.name })),
      },
      {
        group: `MCP servers (${environment}): all their tools`,
        items: (data?.servers ?? []).map((s) => ({
          value: keyOf({ type: 'mcp_server', id: s.id }),
          label: s.name,
        })),
      },
    ];
  });
  const market = (installs.data ?? []).filter((i) => i.itemType === 'tool' && i.status === 'active');
  groups.push({
    group: 'Marketplace tools you installed',
    items: market.map((i) => ({ value: keyOf({ type: 'marketplace', id: i.itemId }), label: i.itemName })),
  });
  const servers = ENVIRONMENTS.flatMap((environment) =>
    ((environment === 'test' ? test : live).data?.servers ?? []).map((s) => ({
      id: s.id,
      name: s.name,
      environment,
    })),
  );
  return {
    groups: groups.filter((g) => g.items.length > 0),
    servers,
    pending: test.isPending || live.isPending || installs.isPending,
    error: test.error ?? live.error ?? installs.error,
  };
}

/** A named MCP server's allow-list: none picked offers all of its tools. */
function AllowList({
  server,
  refs,
  onChange,
}: {
  server: { id: string; name: string; environment: Environment };
  refs: ToolRef[];
  onChange(refs: ToolRef[]): void;
}) {
  const ref = refs.find((r) => r.type === 'mcp_server' && r.id === server.id);
  const listed = useQuery({
    queryKey: ['persona-tool-server-tools', server.id],
    queryFn: async () => {
      const res = await api.GET('/api/v2/developers/mcp-servers/{id}/tools', {
        params: { path: { id: server.id } },
        headers: { [ENVIRONMENT_HEADER]: server.environment },
      });
      return unwrap(res).data.tools.map((t) => t.name);
    },
  });
  const field = useField('tools');
  const names = [...new Set([...(listed.data ?? []), ...(ref?.tools ?? [])])];
  const set = (picked: string[]) =>
    onChange(
      refs.map((r) =>
        r === ref ? { type: r.type, id: r.id, ...(picked.length ? { tools: picked } : {}) } : r,
      ),
    );
  return (
    <MultiSelect
      label={`Only these tools of ${server.name}`}
      description="None picked: all of its tools, as it lists them"
      placeholder={listed.isPending ? 'Listing its tools…' : 'All of its tools'}
      data={names}
      value={ref?.tools ?? []}
      onChange={set}
      searchable
      clearable
      disabled={field.disabled}
    />
  );
}

/**
 * `tools`: what the agent is offered (docs/personas.md "Tools"): custom tools and MCP servers of
 * either environment (a session is offered those of its own), marketplace tools the account
 * installed; an MCP server with an optional allow-list. None picked: the agent is offered none.
 */
export function ToolsSection() {
  const field = useField('tools');
  const refs = asRefs(field.value);
  const choices = useToolChoices();
  const known = new Set(choices.groups.flatMap((g) => g.items.map((i) => i.value)));
  const data = [...choices.groups];
  const missing = refs.filter((r) => !known.has(keyOf(r)));
  if (!choices.pending && missing.length > 0) {
    data.push({
      group: 'Not found',
      items: missing.map((r) => ({ value: keyOf(r), label: `${r.id} (not found)` })),
    });
  }
  const pick = (values: string[]) => {
    const next = values.map((value) => {
      const kept = refs.find((r) => keyOf(r) === value);
      if (kept) return kept;
      const [type, ...id] = value.split(':');
      return { type: type as ToolRef['type'], id: id.join(':') };
    });
    field.set(next.length ? next : undefined);
  };
  const servers = choices.servers.filter((s) => refs.some((r) => r.type === 'mcp_server' && r.id === s.id));
  return (
    <Fieldset legend="Tools">
      <Stack gap="sm">
        <MultiSelect
          id={field.id}
          label="Tools the agent is offered"
          description="In this order; none picked: the agent is offered none. A session is offered those of its own environment."
          placeholder={choices.pending ? 'Loading tools…' : 'Pick tools, MCP servers, marketplace tools'}
          data={data}
          value={refs.map(keyOf)}
          onChange={pick}
          onBlur={field.touch}
          searchable
          clearable
          nothingFoundMessage="No tool matches"
          error={field.error}
          disabled={field.disabled}
        />
        <ErrorAlert error={choices.error} title="The tools did not load" />
        {servers.map((s) => (
          <AllowList key={s.id} server={s} refs={refs} onChange={(next) => field.set(next)} />
        ))}
        {refs.length === 0 ? (
          <Text size="xs" c="dimmed">
            No tools: the agent answers from its prompt alone.
          </Text>
        ) : null}
      </Stack>
    </Fieldset>
  );
}
