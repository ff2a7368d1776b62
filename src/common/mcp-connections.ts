import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** An open MCP session: the initialized client and how to end it. */
export interface PooledConnection<C> {
  client: C;
  close(): Promise<void>;
}

/**
 * The MCP connections a process context keeps between tool calls (src/mcp/mcp-pool.ts implements
 * it; src/mcp/mcp-client.ts uses it). Declared here so the context depends on no area.
 */
export interface McpConnections {
  /** How many connections are open. */
  readonly size: number;
  use<T>(
    key: string,
    connect: () => Promise<PooledConnection<Client>>,
    fn: (client: Client) => Promise<T>,
    judge: { broken(error: unknown): boolean; retry(error: unknown): boolean },
  ): Promise<T>;
  /** Closes every connection (process shutdown). */
  close(): Promise<void>;
}
