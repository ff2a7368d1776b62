import { Navigate, Route, Routes } from 'react-router';
import { ItemPage } from './marketplace/ItemPage';
import { MarketplaceTabs } from './marketplace/MarketplaceTabs';
import { PublishedItemPage } from './marketplace/PublishedItemPage';
import { NewVersionPage, PublishPage } from './marketplace/PublishPage';

/**
 * The marketplace's pages: the tabs (browse, installed, publishing), an item's page, the publish
 * form, and a published item's page (review, versions, removal, analytics) with its new-version form.
 */
export default function MarketplacePage() {
  return (
    <Routes>
      <Route index element={<MarketplaceTabs />} />
      <Route path="tools/:id" element={<ItemPage type="tool" />} />
      <Route path="agents/:id" element={<ItemPage type="agent" />} />
      <Route path="publish" element={<PublishPage />} />
      <Route path="publishing/:id" element={<PublishedItemPage />} />
      <Route path="publishing/:id/new-version" element={<NewVersionPage />} />
      <Route path="*" element={<Navigate to="/marketplace" replace />} />
    </Routes>
  );
}
