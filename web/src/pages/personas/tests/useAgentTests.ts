import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { backoffPolling } from '../../../api/polling';
import type { components } from '../../../api/schema';

export type Scenario = components['schemas']['TestScenario'];
export type ScenarioRequest = components['schemas']['TestScenarioRequest'];
export type TestRun = components['schemas']['TestRun'];
export type TestRunSummary = components['schemas']['TestRunSummary'];
export type ScenarioResult = components['schemas']['TestScenarioResult'];
export type Expectation = components['schemas']['TestExpectation'];

const scenariosKey = (personaId: string) => ['persona', personaId, 'tests'];
const runsKey = (personaId: string) => ['persona', personaId, 'test-runs'];
const runKey = (runId: string) => ['test-run', runId];

/** A persona's test scenarios, and their creation, replacement and deletion. */
export function useScenarios(personaId: string) {
  const queryClient = useQueryClient();
  const path = { id: personaId };
  const scenarios = useQuery({
    queryKey: scenariosKey(personaId),
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/developers/personas/{id}/tests', { params: { path } })).scenarios,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: scenariosKey(personaId) });
  /** Creates the scenario (no id) or replaces it; the API's 400 is thrown as an ApiCallError. */
  const save = useMutation({
    mutationFn: async ({ id, body }: { id: string | null; body: ScenarioRequest }) =>
      id === null
        ? unwrap(await api.POST('/api/v1/developers/personas/{id}/tests', { params: { path }, body }))
            .scenario
        : unwrap(
            await api.PUT('/api/v1/developers/personas/{id}/tests/{scenarioId}', {
              params: { path: { ...path, scenarioId: id } },
              body,
            }),
          ).scenario,
    onSuccess: refresh,
  });
  const remove = async (scenarioId: string) => {
    unwrap(
      await api.DELETE('/api/v1/developers/personas/{id}/tests/{scenarioId}', {
        params: { path: { ...path, scenarioId } },
      }),
    );
    await refresh();
  };
  return { scenarios, save, remove };
}

/**
 * A persona's test runs, newest first (followed while one is running), starting one (every scenario,
 * or those named) and cancelling one.
 */
export function useTestRuns(personaId: string, onStarted: (run: TestRun) => void) {
  const queryClient = useQueryClient();
  const path = { id: personaId };
  const runs = useQuery({
    queryKey: runsKey(personaId),
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/developers/personas/{id}/test-runs', { params: { path, query: {} } }))
        .runs,
    refetchInterval: backoffPolling((list?: TestRunSummary[]) => !!list?.some((r) => r.status === 'running')),
  });
  const settle = (run: TestRun) => {
    queryClient.setQueryData(runKey(run.id), run);
    return queryClient.invalidateQueries({ queryKey: runsKey(personaId) });
  };
  const start = useMutation({
    mutationFn: async (scenarios: string[] | null) =>
      unwrap(
        await api.POST('/api/v1/developers/personas/{id}/test-runs', {
          params: { path, query: {} },
          body: scenarios ? { scenarios } : {},
        }),
      ).run,
    onSuccess: (run) => {
      onStarted(run);
      return settle(run);
    },
  });
  const cancel = useMutation({
    mutationFn: async (runId: string) =>
      unwrap(await api.POST('/api/v1/developers/test-runs/{id}/cancel', { params: { path: { id: runId } } }))
        .run,
    onSuccess: settle,
  });
  return { runs, start, cancel };
}

/** One run with its results, followed while it runs; the history is refreshed when it ends. */
export function useTestRun(personaId: string, runId: string | null) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: runKey(runId ?? ''),
    enabled: runId !== null,
    queryFn: async () => {
      const run = unwrap(
        await api.GET('/api/v1/developers/test-runs/{id}', { params: { path: { id: runId ?? '' } } }),
      ).run;
      if (run.status !== 'running') queryClient.invalidateQueries({ queryKey: runsKey(personaId) });
      return run;
    },
    refetchInterval: backoffPolling((run?: TestRun) => run?.status === 'running'),
  });
}
