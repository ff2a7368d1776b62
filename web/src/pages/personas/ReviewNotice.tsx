import { Alert, Text } from '@mantine/core';
import type { components } from '../../api/schema';
import { formatTime } from '../../components/ui';

type Persona = components['schemas']['Persona'];

/** A persona under review, or the review's decision with the reviewer's notes. */
export function ReviewNotice({ persona }: { persona: Persona }) {
  if (persona.status === 'submitted') {
    return (
      <Alert color="blue" role="status" mb="md" title="Under review">
        Submitted {formatTime(persona.submittedAt)}. Review takes 2-5 business days; this page updates when it
        is decided.
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
        <Text size="sm" mt={4}>
          Reviewer notes: {persona.review.notes}
        </Text>
      ) : null}
    </Alert>
  );
}
