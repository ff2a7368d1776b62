/** What the API tells the console before sign-in (`GET /console/config.json`). */
export interface ConsoleConfig {
  auth: { mode: 'dev' } | { mode: 'oidc'; issuer: string; clientId: string; scope: string };
  temporal: { uiUrl: string | null; namespace: string };
}

let loading: Promise<ConsoleConfig> | undefined;

export function loadConsoleConfig(): Promise<ConsoleConfig> {
  loading ??= fetch('/console/config.json').then(async (res) => {
    if (!res.ok) throw new Error(`The console configuration did not load (HTTP ${res.status})`);
    return (await res.json()) as ConsoleConfig;
  });
  return loading;
}

/** The execution's page in the Temporal Web UI (workflow ids are the resource ids). */
export function temporalExecutionUrl(config: ConsoleConfig, workflowId: string): string | null {
  if (!config.temporal.uiUrl) return null;
  const base = config.temporal.uiUrl.replace(/\/$/, '');
  return `${base}/namespaces/${encodeURIComponent(config.temporal.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}
