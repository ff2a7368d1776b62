import type { Account } from '../../api/client';
import { orderStatusTemplate } from '../personas/templates';
import type { ItemType } from './types';

/**
 * What the publish form starts from: a tool or agent manifest with the account as its publisher, to
 * be completed (the id, the endpoint). The rules are in docs/api-contract.md "Marketplace manifests".
 */
export function manifestTemplate(type: ItemType, account: Pick<Account, 'publisherId' | 'email'>) {
  const common = {
    version: '1.0.0',
    publisher: { id: account.publisherId, name: account.email ?? account.publisherId },
    permissions: [] as string[],
    pricing: { model: 'free' },
    quotas: { free: 100, pro: 10000, enterprise: 1000000 },
    changelog: 'First release.',
  };
  if (type === 'tool') {
    return {
      id: 'my-tool',
      name: 'My Tool',
      ...common,
      description: { short: 'One line on what it does', long: 'What it does, for whom, and what it needs.' },
      execution: {
        runtime: { type: 'mcp', version: '2025-06-18' },
        endpoint: 'https://mcp.example.com/mcp',
        toolName: 'my_tool',
      },
      interface: {
        llmDescription: 'What the model is told the tool does, and its arguments.',
        inputSchema: { type: 'object', properties: {}, required: [] },
      },
    };
  }
  return {
    id: 'my-agent',
    name: 'My Agent',
    displayName: 'Ava',
    ...common,
    description: { short: 'One line on what it does', long: 'What the agent does, for whom.' },
    persona: orderStatusTemplate('my-agent'),
    tools: [] as string[],
  };
}

/** The manifest as the form's text: two-space JSON. */
export const manifestText = (manifest: unknown) => JSON.stringify(manifest, null, 2);

/** The next patch version of a semantic version (1.2.3 → 1.2.4; a pre-release → its release). */
export function nextPatch(version: string): string {
  const match = /^(\d+)\.(\d+)\.(\d+)(-[^+]*)?/.exec(version);
  if (!match) return version;
  const [, major, minor, patch, pre] = match;
  return pre ? `${major}.${minor}.${patch}` : `${major}.${minor}.${Number(patch) + 1}`;
}
