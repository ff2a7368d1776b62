export { type AgentToolRow, agentToolsQuery } from './agent-tools';
export { executeTool, mcpErrorText, mcpResultValue, prepareMcpCall, startToolWithEvents } from './execute';
export { Tool } from './tool.entity';
