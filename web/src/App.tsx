import { lazy, type ReactNode, Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { useSession } from './auth/session';
import { Layout } from './components/Layout';
import { OperatorSignOut, ReviewsFrame } from './components/OperatorLayout';
import { PageLoader } from './components/ui';
import OverviewPage from './pages/Overview';
import { SignInPage } from './pages/SignIn';

const KeysPage = lazy(() => import('./pages/Keys'));
const PersonasPage = lazy(() => import('./pages/Personas'));
const PersonaPage = lazy(() => import('./pages/Persona'));
const VoicesPage = lazy(() => import('./pages/Voices'));
const WebhooksPage = lazy(() => import('./pages/Webhooks'));
const WebhookPage = lazy(() => import('./pages/Webhook'));
const WorkflowsPage = lazy(() => import('./pages/Workflows'));
const WorkflowPage = lazy(() => import('./pages/Workflow'));
const WorkflowBuilderPage = lazy(() => import('./pages/WorkflowBuilder'));
const SessionsPage = lazy(() => import('./pages/Sessions'));
const SessionPage = lazy(() => import('./pages/Session'));
const MarketplacePage = lazy(() => import('./pages/Marketplace'));
const ToolsPage = lazy(() => import('./pages/Tools'));
const ProvidersPage = lazy(() => import('./pages/Providers'));
const McpServerPage = lazy(() => import('./pages/McpServer'));
const OAuthCallbackPage = lazy(() => import('./pages/tools/OAuthCallbackPage'));
const PhoneNumbersPage = lazy(() => import('./pages/PhoneNumbers'));
const CallsPage = lazy(() => import('./pages/Calls'));
const CampaignsPage = lazy(() => import('./pages/Campaigns'));
const KnowledgePage = lazy(() => import('./pages/Knowledge'));
const KnowledgeBasePage = lazy(() => import('./pages/KnowledgeBase'));
const CampaignPage = lazy(() => import('./pages/Campaign'));
const CallPage = lazy(() => import('./pages/Call'));
const ActivitiesPage = lazy(() => import('./pages/Activities'));
const AuthCallbackPage = lazy(() => import('./pages/AuthCallback'));
const OperatorSignInPage = lazy(() => import('./pages/OperatorSignIn'));
const ReviewsPage = lazy(() => import('./pages/Reviews'));
const ReviewPage = lazy(() => import('./pages/reviews/ReviewPage'));

// the landing page is in the first bundle (one round trip less on the first load); the others load on demand
function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (!session) {
    const returnTo = location.pathname + location.search;
    return <Navigate to={`/sign-in?returnTo=${encodeURIComponent(returnTo)}`} replace />;
  }
  return children;
}

export function App() {
  return (
    <Suspense fallback={<PageLoader />}>
      <Routes>
        <Route path="/sign-in" element={<SignInPage />} />
        <Route path="/auth/callback" element={<AuthCallbackPage />} />
        <Route path="/operator/sign-in" element={<OperatorSignInPage />} />
        <Route path="/operator/sign-out" element={<OperatorSignOut />} />
        {/* the review queue: operators (the admin token) and reviewers (docs/console.md "The review queue") */}
        <Route element={<ReviewsFrame />}>
          <Route path="reviews" element={<ReviewsPage />} />
          <Route path="reviews/:id" element={<ReviewPage />} />
        </Route>
        <Route
          element={
            <RequireSession>
              <Layout />
            </RequireSession>
          }
        >
          <Route index element={<OverviewPage />} />
          <Route path="keys" element={<KeysPage />} />
          <Route path="personas" element={<PersonasPage />} />
          <Route path="personas/:id" element={<PersonaPage />} />
          <Route path="voices" element={<VoicesPage />} />
          <Route path="webhooks" element={<WebhooksPage />} />
          <Route path="webhooks/:id" element={<WebhookPage />} />
          <Route path="workflows" element={<WorkflowsPage />} />
          <Route path="workflows/new" element={<WorkflowBuilderPage />} />
          <Route path="workflows/:id" element={<WorkflowPage />} />
          <Route path="workflows/:id/edit" element={<WorkflowBuilderPage />} />
          <Route path="sessions" element={<SessionsPage />} />
          <Route path="sessions/:id" element={<SessionPage />} />
          <Route path="phone-numbers" element={<PhoneNumbersPage />} />
          <Route path="calls" element={<CallsPage />} />
          <Route path="calls/:id" element={<CallPage />} />
          <Route path="campaigns" element={<CampaignsPage />} />
          <Route path="knowledge" element={<KnowledgePage />} />
          <Route path="knowledge/:id" element={<KnowledgeBasePage />} />
          <Route path="campaigns/:id" element={<CampaignPage />} />
          <Route path="marketplace/*" element={<MarketplacePage />} />
          <Route path="tools" element={<ToolsPage />} />
          <Route path="tools/mcp-servers/:id" element={<McpServerPage />} />
          <Route path="tools/oauth/callback" element={<OAuthCallbackPage />} />
          <Route path="providers" element={<ProvidersPage />} />
          <Route path="activities" element={<ActivitiesPage />} />
          <Route path="*" element={<Navigate to="/" replace />} />
        </Route>
      </Routes>
    </Suspense>
  );
}
