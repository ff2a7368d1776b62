import { Alert, Anchor, List, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { components } from '../../api/schema';
import { formatTime } from '../../components/ui';

type Persona = components['schemas']['Persona'];
type ReviewTests = components['schemas']['ReviewTests'];

/**
 * The persona's test suite as its review ran it (docs/personas.md "Gating the review on tests"):
 * running, none, or the counts with each failing scenario and its reasons, and where to open the run.
 */
function ReviewTestResults({ tests, personaId }: { tests: ReviewTests | null; personaId: string }) {
  if (!tests) return null;
  if (tests.status === 'none') {
    return (
      <Text size="sm" mt={4} data-testid="review-tests">
        No tests: the persona has no test scenarios, so the operator reviews the manifest alone.
      </Text>
    );
  }
  const runLink = (
    <Anchor component={Link} to={`/personas/${personaId}?tab=tests`} size="sm">
      Open the run in the Tests tab
    </Anchor>
  );
  if (tests.status === 'running') {
    return (
      <Text size="sm" mt={4} data-testid="review-tests">
        Running the persona's tests ({tests.total} scenario{tests.total === 1 ? '' : 's'}) before the operator
        decides. {runLink}
      </Text>
    );
  }
  return (
    <div data-testid="review-tests">
      <Text size="sm" mt={4}>
        Tests {tests.status}: {tests.passed} passed, {tests.failed} failed of {tests.total}. {runLink}
      </Text>
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
    </div>
  );
}

/** A persona under review (with its tests as they run), or the review's decision with the reviewer's notes. */
export function ReviewNotice({ persona }: { persona: Persona }) {
  if (persona.status === 'submitted') {
    return (
      <Alert color="blue" role="status" mb="md" title="Under review">
        <Text size="sm">
          Submitted {formatTime(persona.submittedAt)}. Review takes 2-5 business days; this page updates when
          it is decided.
        </Text>
        <ReviewTestResults tests={persona.pendingReview?.tests ?? null} personaId={persona.id} />
      </Alert>
    );
  }
  if (!persona.review) return null;
  const approved = persona.review.decision === 'approved';
  return (
    <Alert
      color={approved ? 'green' : 'red'}
      mb="md"
      title={`Review ${persona.review.decision}`}
      data-testid="review"
    >
      <Text size="sm">Decided {formatTime(persona.review.decidedAt)}.</Text>
      {persona.review.notes ? (
        <Text size="sm" mt={4} style={{ whiteSpace: 'pre-line' }}>
          Reviewer notes: {persona.review.notes}
        </Text>
      ) : null}
      <ReviewTestResults tests={persona.review.tests} personaId={persona.id} />
    </Alert>
  );
}
