import { Tabs } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../components/ui';
import { CustomToolsPanel } from './tools/CustomToolsPanel';
import { McpServersPanel } from './tools/McpServersPanel';
import { OAuthPanel } from './tools/OAuthPanel';
import { SecretsPanel } from './tools/SecretsPanel';

const TABS = [
  { value: 'mcp', label: 'MCP servers', panel: <McpServersPanel /> },
  { value: 'custom', label: 'Custom tools', panel: <CustomToolsPanel /> },
  { value: 'secrets', label: 'Secrets', panel: <SecretsPanel /> },
  { value: 'oauth', label: 'OAuth', panel: <OAuthPanel /> },
] as const;

/** Tools: MCP servers, custom tools, secrets and OAuth connections, one tab each (`?tab=`). */
export default function ToolsPage() {
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const tab = TABS.some((t) => t.value === asked) ? asked! : TABS[0].value;
  return (
    <>
      <PageHeader title="Tools" description="What your agents can do, and the credentials those tools use." />
      <Tabs
        value={tab}
        onChange={(v) => setParams(v && v !== TABS[0].value ? { tab: v } : {}, { replace: true })}
        keepMounted={false}
      >
        <Tabs.List mb="md">
          {TABS.map((t) => (
            <Tabs.Tab key={t.value} value={t.value}>
              {t.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {TABS.map((t) => (
          <Tabs.Panel key={t.value} value={t.value}>
            {t.panel}
          </Tabs.Panel>
        ))}
      </Tabs>
    </>
  );
}
