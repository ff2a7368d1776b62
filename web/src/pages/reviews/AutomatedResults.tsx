import { List, Text } from '@mantine/core';
import type { components } from '../../api/schema';
import { GOOD } from '../../components/ui';

type ReviewTests = components['schemas']['ReviewTests'];
type Checks = NonNullable<components['schemas']['ReviewDetail']['checks']>;

/** One line of counts: "3 passed, 1 failed of 4". */
const counts = (t: ReviewTests) => `${t.passed} passed, ${t.failed} failed of ${t.total}`;

/**
 * A persona review's test suite, as the review workflow ran it on the submitted draft (docs/personas.md
 * "Gating the review on tests"): not yet looked for, running, none, or the counts with each failing
 * scenario and its reasons.
 */
export function TestResults({ tests }: { tests: ReviewTests | null }) {
  if (!tests) {
    return <Text size="sm">No test results recorded for this review (yet).</Text>;
  }
  if (tests.status === 'none') {
    return <Text size="sm">No tests: the persona has no test scenarios; review the manifest alone.</Text>;
  }
  if (tests.status === 'running') {
    return (
      <Text size="sm">
        Running the persona's {tests.total} test scenario{tests.total === 1 ? '' : 's'}: a decision is refused
        until they end.
      </Text>
    );
  }
  return (
    <>
      <Text size="sm" c={tests.status === 'passed' ? GOOD : undefined} fw={600}>
        Tests {tests.status}: {counts(tests)}
      </Text>
      {tests.runId ? (
        <Text size="xs" c="dimmed">
          Run {tests.runId}
        </Text>
      ) : null}
      {tests.failures.length ? (
        <List size="sm" mt={4} aria-label="Failing scenarios">
          {tests.failures.map((f) => (
            <List.Item key={f.scenarioId}>
              <Text span size="sm" fw={600}>
                {f.name}
              </Text>
              {f.status === 'error' ? ' (could not be run)' : ''}: {f.reasons.join('; ')}
            </List.Item>
          ))}
        </List>
      ) : null}
    </>
  );
}

/** A marketplace version's automated checks: running, passed or failed, with every finding. */
export function CheckResults({ checks }: { checks: Checks | null }) {
  if (!checks) return <Text size="sm">The version under review was not found.</Text>;
  return (
    <>
      <Text size="sm" fw={600} c={checks.passed ? GOOD : undefined}>
        {checks.passed === null
          ? 'The automated checks are running: a decision is refused until they end.'
          : checks.passed
            ? 'Automated checks passed'
            : 'Automated checks failed'}
      </Text>
      {checks.findings.length ? (
        <List size="sm" mt={4} aria-label="Findings">
          {checks.findings.map((finding) => (
            <List.Item key={finding}>{finding}</List.Item>
          ))}
        </List>
      ) : checks.passed !== null ? (
        <Text size="sm">No findings.</Text>
      ) : null}
    </>
  );
}
