import { Text } from '@mantine/core';

/** The persona page's Tests tab: its test scenarios and their runs (docs/personas.md "Testing an agent"). */
export function TestsTab(props: { personaId: string }) {
  return (
    <Text size="sm" data-persona={props.personaId}>
      Test scenarios of this persona.
    </Text>
  );
}
