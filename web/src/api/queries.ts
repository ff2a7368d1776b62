import { queryOptions } from '@tanstack/react-query';
import { api, type Environment, unwrap } from './client';

/**
 * Queries that more than one page reads. A cache key is defined here once, with the one fetch that
 * fills it, so every page that shares an entry gets the same shape (docs/console.md "How it is
 * built"): two pages that fetched the same key into different shapes broke each other.
 */

/** The environment's MCP servers (GET /mcp-servers, first 100), as the list. */
export const mcpServersQuery = (environment: Environment) =>
  queryOptions({
    queryKey: ['mcp-servers', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/mcp-servers', { params: { query: { limit: 100 } } })).data,
  });

/** One MCP server's discovered tools (GET /mcp-servers/:id/tools): `{ tools, … }`; off until a server is picked. */
export const mcpServerToolsQuery = (environment: Environment, id: string) =>
  queryOptions({
    queryKey: ['mcp-server-tools', environment, id],
    enabled: id !== '',
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/mcp-servers/{id}/tools', { params: { path: { id } } })).data,
  });

/** The account's personas (GET /personas, console API: both environments), as the list. */
export const personasQuery = () =>
  queryOptions({
    queryKey: ['personas'],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/personas')).personas,
  });

/** The environment's phone numbers (GET /phone-numbers, first 100), newest first, as the list. */
export const phoneNumbersQuery = (environment: Environment) =>
  queryOptions({
    queryKey: ['phone-numbers', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/phone-numbers', { params: { query: { limit: 100 } } })).data,
  });

/** The account's providers (GET /providers, first 200; the account's, whichever environment), oldest first. */
export const providersQuery = () =>
  queryOptions({
    queryKey: ['providers'],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/providers', { params: { query: { limit: 200 } } })).data,
  });
