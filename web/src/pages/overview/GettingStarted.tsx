import { Anchor, Button, Card, Group, List, Progress, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ErrorAlert } from '../../components/ui';
import { gettingStartedQuery, useCreateFromTemplate } from '../personas/useCreateFromTemplate';

/** Where each step is done in the console. */
const STEP_PAGES: Record<string, string> = {
  key: '/keys',
  persona: '/personas',
  voice: '/voices',
  talk: '/sessions',
  tool: '/tools',
  webhook: '/webhooks',
};

/**
 * A new account's checklist (GET /getting-started): key → persona → voice → talk to it → give it a
 * tool → a webhook, each ticked from the account's real state; gone once every step is done.
 */
export function GettingStarted() {
  const checklist = useQuery({
    ...gettingStartedQuery,
    // one cheap statement: each visit to the overview shows the steps as they are now
    refetchOnMount: 'always',
  });
  const template = useCreateFromTemplate();
  const data = checklist.data;
  if (!data || data.done === data.total)
    return <ErrorAlert error={checklist.error} title="The checklist did not load" />;
  return (
    <Card withBorder mb="lg" component="section" aria-labelledby="getting-started-title">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <div>
            <Title order={2} size="h4" id="getting-started-title">
              Getting started
            </Title>
            <Text size="sm" c="dimmed">
              {data.done} of {data.total} done: from a blank account to talking with an agent that uses a
              tool.
            </Text>
          </div>
          <Button onClick={() => template.mutate()} loading={template.isPending}>
            Create from a template
          </Button>
        </Group>
        <Progress value={(100 * data.done) / data.total} aria-label="Getting started progress" />
        <List spacing={4} listStyleType="none" aria-label="Getting started steps">
          {data.steps.map((step) => (
            <List.Item key={step.id} data-done={step.done}>
              <Text span aria-hidden>
                {step.done ? '✓ ' : '○ '}
              </Text>
              <Anchor component={Link} to={STEP_PAGES[step.id]} td={step.done ? 'line-through' : undefined}>
                {step.title}
              </Anchor>
              <Text span size="sm" c="dimmed">
                {step.done ? ' (done)' : ''}
              </Text>
            </List.Item>
          ))}
        </List>
        {data.demoMcpUrl ? (
          <Text size="sm" c="dimmed">
            The template's agent looks orders up with the demo shop's MCP server ({data.demoMcpUrl}),
            registered for you in the test environment.
          </Text>
        ) : null}
        <ErrorAlert error={template.error} title="The persona was not created" />
      </Stack>
    </Card>
  );
}
