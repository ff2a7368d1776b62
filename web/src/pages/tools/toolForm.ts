import type { components } from '../../api/schema';
import { type HeaderRow, headersObject } from './HeaderRows';
import { type ParameterRow, parametersSchema } from './parameters';

export type ToolType = components['schemas']['Tool']['type'];
export type CreateToolRequest = components['schemas']['CreateToolRequest'];
export const HTTP_METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'] as const;

/** Everything the "Create a tool" form holds, for every type (only the chosen type's fields are sent). */
export interface ToolForm {
  name: string;
  description: string;
  type: ToolType;
  parameters: ParameterRow[];
  webhook: { url: string; method: string; headers: HeaderRow[]; timeoutMs: string; oauthTokenId: string };
  mcp: { serverId: string; toolName: string };
  prompt: { prompt: string; model: string; maxTokens: string };
}

export const emptyToolForm = (): ToolForm => ({
  name: '',
  description: '',
  type: 'webhook',
  parameters: [],
  webhook: { url: '', method: 'POST', headers: [], timeoutMs: '', oauthTokenId: '' },
  mcp: { serverId: '', toolName: '' },
  prompt: { prompt: '', model: '', maxTokens: '' },
});

const numberOrUndefined = (value: string) => (value.trim() === '' ? undefined : Number(value));

/** The form as the body of POST /tools: the chosen type's config, the parameters when there are any. */
export function createToolBody(form: ToolForm): CreateToolRequest {
  const common = {
    name: form.name,
    description: form.description || undefined,
    parameters: form.parameters.some((p) => p.name.trim()) ? parametersSchema(form.parameters) : undefined,
  };
  if (form.type === 'webhook') {
    const w = form.webhook;
    return {
      ...common,
      type: 'webhook',
      config: {
        url: w.url,
        method: w.method,
        headers: headersObject(w.headers),
        timeoutMs: numberOrUndefined(w.timeoutMs),
        oauthTokenId: w.oauthTokenId || undefined,
      },
    };
  }
  if (form.type === 'mcp') return { ...common, type: 'mcp', config: { ...form.mcp } };
  const p = form.prompt;
  return {
    ...common,
    type: 'prompt',
    config: { prompt: p.prompt, model: p.model || undefined, maxTokens: numberOrUndefined(p.maxTokens) },
  };
}
