export { agentServersQuery } from './agent-servers';
export {
  describeMcpFailure,
  MCP_TIMEOUT_MS,
  McpError,
  pooledMcpClient,
  withPooledMcpClient,
} from './mcp-client';
export { type DiscoveredTool, McpServer } from './mcp-server.entity';
