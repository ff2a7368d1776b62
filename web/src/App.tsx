import { lazy, type ReactNode, Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { useSession } from './auth/session';
import { Layout } from './components/Layout';
import { PageLoader } from './components/ui';
import { SignInPage } from './pages/SignIn';

const KeysPage = lazy(() => import('./pages/Keys'));
const AuthCallbackPage = lazy(() => import('./pages/AuthCallback'));

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
        <Route
          element={
            <RequireSession>
              <Layout />
            </RequireSession>
          }
        >
          <Route path="keys" element={<KeysPage />} />
          <Route path="*" element={<Navigate to="/keys" replace />} />
        </Route>
      </Routes>
    </Suspense>
  );
}
