import { condition, defineUpdate, proxyLocalActivities, setHandler } from '@temporalio/workflow';

/** bench:sessions' floor: a turn that is one Workflow Update running one local activity, nothing else. */
export const floorTurn = defineUpdate<string, [string]>('floorTurn');

const { echo } = proxyLocalActivities<{ echo(text: string): Promise<string> }>({
  startToCloseTimeout: '10 seconds',
});

/** Answers each update with its own text, through one local activity; runs until terminated. */
export async function floorWorkflow(): Promise<void> {
  setHandler(floorTurn, (text) => echo(text));
  await condition(() => false);
}
