import type { Expectation } from './useAgentTests';

/** An expectation in a few words, for a verdict's row (e.g. `toolCalled orders__lookup {"orderId":"A-1"}`). */
export function expectationText(e: Expectation): string {
  switch (e.type) {
    case 'toolCalled':
      return `toolCalled ${e.name}${e.arguments ? ` ${JSON.stringify(e.arguments)}` : ''}`;
    case 'toolNotCalled':
      return `toolNotCalled ${e.name}`;
    case 'route':
      return `route ${e.route}`;
    case 'replyContains':
      return `replyContains “${e.text}”${e.caseSensitive ? ' (case-sensitive)' : ''}`;
    case 'replyMatches':
      return `replyMatches /${e.pattern}/${e.flags ?? ''}`;
    case 'refused':
      return 'refused';
    case 'maxLatencyMs':
      return `maxLatencyMs ${e.ms}`;
    case 'judge':
      return `judge: ${e.rubric}`;
  }
}
