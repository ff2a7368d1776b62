import { Button, Tabs } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { PageHeader } from '../../components/ui';
import { BrowseTab } from './BrowseTab';
import { InstalledTab } from './InstalledTab';
import { PublishingTab } from './PublishingTab';

const TABS = ['browse', 'installed', 'publishing'] as const;

/** The marketplace's tabs: browse and install tools and agents, your installations, your published items. */
export function MarketplaceTabs() {
  const [params, setParams] = useSearchParams();
  const tab = (TABS as readonly string[]).includes(params.get('tab') ?? '') ? params.get('tab')! : 'browse';
  return (
    <>
      <PageHeader
        title="Marketplace"
        description="Tools and agents published by developers; install them for your account, or publish your own."
        actions={
          <Button component={Link} to="/marketplace/publish">
            Publish a tool or agent
          </Button>
        }
      />
      <Tabs
        value={tab}
        onChange={(v) => setParams(v && v !== 'browse' ? { tab: v } : {}, { replace: true })}
        keepMounted={false}
      >
        <Tabs.List mb="md">
          <Tabs.Tab value="browse">Browse</Tabs.Tab>
          <Tabs.Tab value="installed">Installed</Tabs.Tab>
          <Tabs.Tab value="publishing">Publishing</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="browse">
          <BrowseTab />
        </Tabs.Panel>
        <Tabs.Panel value="installed">
          <InstalledTab />
        </Tabs.Panel>
        <Tabs.Panel value="publishing">
          <PublishingTab />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
