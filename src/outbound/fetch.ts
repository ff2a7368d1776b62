import type { LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { guardedLookup, OutboundError, type OutboundPolicy, urlProblem } from './http';

/**
 * A `fetch` for libraries that bring their own HTTP (the MCP client) with the same SSRF guard as
 * `sendOutbound`: the URL is checked first, and every connection's resolved address is checked in
 * the socket's DNS lookup. Redirects are not followed.
 */
const agents = new Map<boolean, Agent>();

function agentFor(allowPrivate: boolean): Agent {
  let agent = agents.get(allowPrivate);
  if (!agent) {
    agent = new Agent({
      keepAliveTimeout: 10_000,
      connect: allowPrivate ? {} : { lookup: guardedLookup as unknown as LookupFunction },
    });
    agents.set(allowPrivate, agent);
  }
  return agent;
}

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export function guardedFetch(policy: OutboundPolicy): FetchLike {
  return async (url, init) => {
    const target = url.toString();
    const problem = urlProblem(target, policy);
    if (problem)
      throw new OutboundError(`URL ${problem}`, problem.includes('private') ? 'blocked' : 'invalid_url', 0);
    try {
      return (await undiciFetch(target, {
        ...(init as object),
        redirect: 'manual',
        dispatcher: agentFor(policy.allowPrivate),
      })) as unknown as Response;
    } catch (error) {
      const cause = (error as { cause?: Error }).cause;
      if (cause?.name === 'BlockedDestinationError') throw new OutboundError(cause.message, 'blocked', 0);
      throw error;
    }
  };
}
