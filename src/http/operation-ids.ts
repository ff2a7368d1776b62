import type { HttpMethod } from './openapi';

/** `rotate-secret` → `rotateSecret`, `mcp-servers` → `mcpServers`. */
const camel = (segment: string) => segment.replace(/[-_]+([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** A segment names a collection (`webhooks`, `turns`) rather than an action (`test`, `pause`) or one thing (`me`). */
const looksPlural = (segment: string) =>
  /[^s]s$/.test(segment) && !/(status|analytics|analysis|settings|stats)$/.test(segment);

/**
 * An operation's stable id, `resource.verb` (docs/api-contract.md "Operation ids"), derived from
 * its method and its path under its API root, so it cannot drift from the route and a new route
 * needs no name of its own:
 * - the resource is the path's fixed segments in camelCase, joined by dots (ids left out):
 *   `/sessions/:id/turns` → `sessions.turns`;
 * - the verb: GET of a collection `list`, of one thing `get`; POST to a collection `create`, to
 *   anything else the last segment is the verb itself (`/webhooks/:id/test` → `webhooks.test`,
 *   `/campaigns/:id/pause` → `campaigns.pause`); PUT and PATCH `update`; DELETE `delete`;
 * - `prefix` names the API root when it is not the platform API (`console`, `marketplace`, `admin`).
 */
export function operationIdOf(method: HttpMethod, path: string, prefix = ''): string {
  const segments = path.split('/').filter(Boolean);
  const last = segments.at(-1) ?? '';
  const endsWithId = last.startsWith(':');
  const resource = segments.filter((s) => !s.startsWith(':')).map(camel);
  let verb: string;
  if (method === 'get') verb = !endsWithId && looksPlural(last) ? 'list' : 'get';
  else if (method === 'post') {
    // `/execute/:itemId`: the segment before the id is the action; `/items/:id` would be a create
    const named = endsWithId ? (segments.at(-2) ?? '') : last;
    if (looksPlural(named) || segments.length === 1) verb = 'create';
    else verb = camel(resource.pop() ?? 'post');
  } else if (method === 'delete') verb = 'delete';
  else verb = 'update';
  return [prefix, ...resource, verb].filter(Boolean).join('.');
}
