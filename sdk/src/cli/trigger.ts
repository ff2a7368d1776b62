import type { BodyOf } from '../operation-types';
import { type CliCommand, parseCommandArgs, UsageError } from './command';
import { clientFromConfig } from './config';

const HELP = `Usage: vp trigger <event-type> [--data JSON] [--persona ID]

Emits a sample event of <event-type> (e.g. session.ended) to your webhooks, through the same
outbox and delivery path as real events (POST /events/trigger). Sandbox (pk_test_) keys only.
Prints the event id and the webhooks it goes to; \`vp logs tail\` shows the deliveries.

Options:
  --data JSON     fields merged over the type's sample data, e.g. '{"duration":42000}'
  --persona ID    the persona the event belongs to (for persona-filtered webhooks)`;

const OPTIONS = { data: { type: 'string' }, persona: { type: 'string' } } as const;

type TriggerBody = BodyOf<'events.trigger'>;

/** `--data`: a JSON object. */
function parseData(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--data is not JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new UsageError('--data must be a JSON object');
  }
  return data as Record<string, unknown>;
}

export const triggerCommand: CliCommand = {
  words: ['trigger'],
  summary: 'Emit a sample event to your webhooks (pk_test_ keys)',
  help: HELP,
  async run(args) {
    const parsed = parseCommandArgs(args, OPTIONS, ['event-type']);
    const body: TriggerBody = {
      // the platform checks the type against its catalog and answers VALIDATION_FAILED naming it
      type: parsed.positionals[0] as TriggerBody['type'],
      data: parseData(parsed.values.data),
      personaId: parsed.values.persona,
    };
    const { event, matchingWebhooks } = await clientFromConfig().events.trigger(body);
    process.stdout.write(`Triggered ${event.type}: ${event.id}\n`);
    process.stdout.write(
      matchingWebhooks.length > 0
        ? `Matching webhooks: ${matchingWebhooks.join(', ')}\n`
        : 'Matching webhooks: none (no enabled webhook subscribes to it)\n',
    );
    return 0;
  },
};
