import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, ENVIRONMENT_HEADER, environmentStore, unwrap } from '../../api/client';
import { orderStatusTemplate } from './templates';

const IN_TEST = { [ENVIRONMENT_HEADER]: 'test' };

/** GET /getting-started: the overview's checklist, and the demo MCP server's URL the template uses. */
export const gettingStartedQuery = {
  queryKey: ['getting-started'],
  queryFn: async () => unwrap(await api.GET('/api/v1/developers/getting-started')),
};

/**
 * Creates the order-status persona from its template (a slug of its own), and, where `npm start`
 * serves the demo MCP server, registers that server in the test environment (once) and names it in
 * the persona's tools, so the first test call can use a tool; then switches the console to the test
 * environment and opens the persona.
 */
export function useCreateFromTemplate() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const slug = `ava-orders-${Math.random().toString(36).slice(2, 7)}`;
      // the checklist's answer when the overview has it (the URL never changes while the API runs)
      const { demoMcpUrl } = await queryClient.fetchQuery({ ...gettingStartedQuery, staleTime: Infinity });
      const demoServer = demoMcpUrl ? await registerDemoServer(demoMcpUrl) : undefined;
      const manifest = {
        ...orderStatusTemplate(slug),
        ...(demoServer ? { tools: [{ type: 'mcp_server' as const, id: demoServer }] } : {}),
      };
      const { persona } = unwrap(await api.POST('/api/v1/developers/personas', { body: { manifest } }));
      return persona;
    },
    onSuccess: async (persona) => {
      // the console moves to the environment the agent was built in: its first calls are test calls,
      // and the overview, sessions and tools then show them (the choice is kept, as the switch's is)
      environmentStore.set('test');
      await queryClient.invalidateQueries();
      navigate(`/personas/${persona.id}`);
    },
  });
}

/** The test environment's demo MCP server (registered now if it is not yet): its id. */
async function registerDemoServer(endpoint: string): Promise<string> {
  const servers = unwrap(
    await api.GET('/api/v2/developers/mcp-servers', { params: { query: { limit: 200 } }, headers: IN_TEST }),
  ).data;
  const registered = servers.find((s) => s.endpoint === endpoint);
  if (registered) return registered.id;
  return unwrap(
    await api.POST('/api/v2/developers/mcp-servers', {
      body: { name: 'demo-shop', transport: 'http', endpoint, autoConnect: true },
      headers: IN_TEST,
    }),
  ).data.id;
}
