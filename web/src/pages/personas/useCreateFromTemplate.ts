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
 * serves the demo MCP server, registers that server in the test environment (once), so the first
 * test call can use a tool; then switches the console to the test environment and opens the persona.
 */
export function useCreateFromTemplate() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const slug = `ava-orders-${Math.random().toString(36).slice(2, 7)}`;
      const { persona } = unwrap(
        await api.POST('/api/v1/developers/personas', { body: { manifest: orderStatusTemplate(slug) } }),
      );
      // the checklist's answer when the overview has it (the URL never changes while the API runs)
      const { demoMcpUrl } = await queryClient.fetchQuery({ ...gettingStartedQuery, staleTime: Infinity });
      if (demoMcpUrl) await registerDemoServer(demoMcpUrl);
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

async function registerDemoServer(endpoint: string): Promise<void> {
  const servers = unwrap(
    await api.GET('/api/v2/developers/mcp-servers', { params: { query: { limit: 200 } }, headers: IN_TEST }),
  ).data;
  if (servers.some((s) => s.endpoint === endpoint)) return;
  unwrap(
    await api.POST('/api/v2/developers/mcp-servers', {
      body: { name: 'demo-shop', transport: 'http', endpoint, autoConnect: true },
      headers: IN_TEST,
    }),
  );
}
