import type { CoreContext } from '../../common/context';
import { ANSWER_LIMITS } from '../../outbound/answer-limits';
import { OutboundError, sendOutbound } from '../../outbound/http';
import type { ToolManifest } from '../items/manifest';
import { callItemMcpTool } from './mcp';

/** A run's deadline (MCP call or HTTP request) and the largest answer it reads (ANSWER_LIMITS.marketplaceTool). */
export const EXECUTION_TIMEOUT_MS = ANSWER_LIMITS.marketplaceTool.timeoutMs;
export const RESULT_LIMIT_BYTES = ANSWER_LIMITS.marketplaceTool.maxBytes;

/** Machine-readable reasons a run failed, recorded on its metering record (analytics' `topErrors`). */
export const RUN_ERROR_CODES = [
  'TOOL_ERROR',
  'HTTP_ERROR',
  'TIMEOUT',
  'UNREACHABLE',
  'BLOCKED',
  'RESPONSE_TOO_LARGE',
  'PROTOCOL_ERROR',
] as const;
export type RunErrorCode = (typeof RUN_ERROR_CODES)[number];

export type RunOutcome =
  | { success: true; result: unknown }
  | { success: false; error: string; errorCode: RunErrorCode };

const JSON_TYPES: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  array: (v) => Array.isArray(v),
  null: (v) => v === null,
};

/**
 * Problems of `args` against a manifest's `interface.inputSchema` (`arguments.<name>: …`): missing
 * required arguments and top-level type mismatches. Unknown arguments are refused only when the
 * schema says `additionalProperties: false`; deeper structure is the tool's to check.
 */
export function inputProblems(
  schema: ToolManifest['interface']['inputSchema'],
  args: Record<string, unknown>,
) {
  if (!schema) return [];
  const problems: string[] = [];
  const properties = schema.properties ?? {};
  for (const name of schema.required ?? []) {
    if (args[name] === undefined) problems.push(`arguments.${name}: is required`);
  }
  for (const [name, value] of Object.entries(args)) {
    const spec = properties[name];
    if (!spec) {
      if ((schema as { additionalProperties?: unknown }).additionalProperties === false)
        problems.push(`arguments.${name}: unknown argument`);
      continue;
    }
    const check = typeof spec.type === 'string' ? JSON_TYPES[spec.type] : undefined;
    if (check && !check(value)) problems.push(`arguments.${name}: expected ${spec.type}`);
  }
  return problems;
}

/** A run whose answer (or the result taken from it) passed RESULT_LIMIT_BYTES. */
const tooLarge = (what: 'response' | 'result'): RunOutcome => ({
  success: false,
  error: `The ${what} exceeded ${RESULT_LIMIT_BYTES} bytes`,
  errorCode: 'RESPONSE_TOO_LARGE',
});

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function runHttp(
  ctx: Pick<CoreContext, 'config'>,
  manifest: ToolManifest,
  args: Record<string, unknown>,
): Promise<RunOutcome> {
  try {
    const response = await sendOutbound({
      url: manifest.execution.endpoint!,
      method: 'POST',
      headers: {
        'User-Agent': 'VoicePlatform-Marketplace/1.0',
        Accept: 'application/json',
        'Content-Type': 'application/json',
        'X-Marketplace-Item': `${manifest.id}@${manifest.version}`,
      },
      body: JSON.stringify(args),
      limits: ANSWER_LIMITS.marketplaceTool,
      policy: ctx.config.outbound,
    });
    if (response.status >= 200 && response.status < 300)
      return { success: true, result: parseBody(response.body) };
    return {
      success: false,
      error: `HTTP ${response.status}: ${response.body.slice(0, 500)}`,
      errorCode: 'HTTP_ERROR',
    };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    if (error.kind === 'too_large') return tooLarge('response');
    const errorCode: RunErrorCode =
      error.kind === 'blocked' ? 'BLOCKED' : error.kind === 'timeout' ? 'TIMEOUT' : 'UNREACHABLE';
    return { success: false, error: error.message, errorCode };
  }
}

/**
 * Runs a marketplace tool once: MCP `tools/call` on the publisher's endpoint, or an HTTP POST of
 * the arguments as JSON, both through the SSRF guard, within EXECUTION_TIMEOUT_MS, keeping at most
 * RESULT_LIMIT_BYTES of the result. Failures are outcomes, never exceptions.
 */
export async function runTool(
  ctx: Pick<CoreContext, 'config' | 'mcpConnections'>,
  manifest: ToolManifest,
  args: Record<string, unknown>,
): Promise<RunOutcome> {
  const { runtime, endpoint, toolName } = manifest.execution;
  if (runtime.type === 'http') return runHttp(ctx, manifest, args);
  const outcome = await callItemMcpTool(ctx, endpoint!, toolName!, args, EXECUTION_TIMEOUT_MS);
  if (outcome.success && Buffer.byteLength(JSON.stringify(outcome.result) ?? '') > RESULT_LIMIT_BYTES)
    return tooLarge('result');
  return outcome;
}
