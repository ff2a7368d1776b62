import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { loadHistories, SCENARIOS } from './histories';

/**
 * Replays the recorded histories in test/histories/ against today's workflow code (the workflows
 * index, bundled as the worker bundles it). A change that makes a recorded run take a different
 * path (a new, removed or reordered activity, timer or local activity) fails here with a
 * determinism error: version it with patched() / deprecatePatch() instead (docs/architecture.md
 * "Changing a running workflow"). No Temporal server or database is needed.
 */
describe('workflow replay (recorded histories)', () => {
  const histories = loadHistories();
  // the replay worker's own lifecycle logs are noise here; a failing replay is reported by the test
  beforeAll(() => Runtime.install({ logger: new DefaultLogger('WARN') }));

  it('has a recorded history for every scenario', () => {
    expect(Object.fromEntries(histories.map((h) => [h.workflowId, h.workflowType]))).toEqual(SCENARIOS);
  });

  it('replays every history deterministically with the current workflow code', async () => {
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories(
      { workflowsPath: require.resolve('../../workflows'), replayName: 'histories' },
      histories,
    )) {
      replayed += 1;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(histories.length);
  }, 120_000);
});
