export { type CommandParameter, commandParametersOf } from './command-parameters';
export {
  executionSteps,
  type FinishedExecution,
  finishedExecution,
  finishedExecutionCte,
  recordExecutionStart,
} from './execution-store';
export { type RunVoiceWorkflowInput, workflowInputOf } from './execution-types';
export { interpretGraph, type StepRecord } from './interpreter';
export { commandScore, matchCommand, normalizeUtterance } from './matching';
export {
  type FilledParameters,
  fillFromAnswer,
  fillParameters,
  type ParameterValue,
  parameterValueOf,
} from './parameter-filling';
export { type VoiceCommandWorkflow, voiceCommandsOf, voiceCommandWorkflowsJson } from './voice-commands';
export { executionJsonSql, WorkflowExecution } from './workflow.entity';
