export { agentServersQuery, mcpServerForCall } from './agent-servers';
export {
  describeMcpFailure,
  isAnswerTooLarge,
  MCP_TIMEOUT_MS,
  McpError,
  mcpFetch,
  pooledMcpClient,
  refusedAnswer,
  withPooledMcpClient,
} from './mcp-client';
export { type DiscoveredTool, McpServer } from './mcp-server.entity';
