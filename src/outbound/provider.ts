import { request } from 'undici';
import { type AnswerLimits, readCapped } from './answer-limits';

/**
 * POSTs a JSON body to the model provider (LLM_BASE_URL: the operator's own endpoint, so no SSRF
 * guard) and answers its status and body text. undici's `request` on its kept connections, not
 * `fetch`: the WHATWG Request/Response/stream layers cost about 0.4 ms a call here, twice per
 * one-tool voice turn. `limits.timeoutMs` covers the whole exchange, body included; an answer past
 * `limits.maxBytes` throws OutboundError 'too_large' (the connection is closed there).
 */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  limits: AnswerLimits,
): Promise<{ status: number; ok: boolean; text: string }> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });
  const text = (await readCapped(response.body, limits.maxBytes)).toString('utf8');
  return { status: response.statusCode, ok: response.statusCode >= 200 && response.statusCode < 300, text };
}
