export { type AgentToolRow, agentToolsQuery } from './agent-tools';
export {
  executeTool,
  mcpErrorText,
  mcpResultValue,
  prepareMcpCall,
  type ToolExecutionResult,
} from './execute';
export { Tool } from './tool.entity';
export { startToolWithEvents, type ToolCall, type ToolEventWriter } from './tool-events';
export type { ToolErrorCode } from './tool-types';
export { ToolErrorCodeSchema } from './tools.schemas';
