import { Button, SimpleGrid, Text } from '@mantine/core';

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'] as const;

/**
 * A phone's keypad during a test call: each key goes to the server at once (`input.dtmf`), which
 * collects an entry as a phone call does (it ends at #, or after 2 s without a key) and hands it to
 * the agent as `keypad: 12`.
 */
export function CallKeypad({ disabled, onKey }: { disabled: boolean; onKey: (key: string) => void }) {
  return (
    <fieldset style={{ border: 0, padding: 0, margin: 0, maxWidth: 180 }}>
      <Text component="legend" size="sm" fw={500} mt="sm" mb={4} p={0}>
        Keypad
      </Text>
      <SimpleGrid cols={3} spacing={4} verticalSpacing={4}>
        {KEYS.map((key) => (
          <Button
            key={key}
            size="xs"
            variant="default"
            aria-label={`Key ${key}`}
            disabled={disabled}
            onClick={() => onKey(key)}
          >
            {key}
          </Button>
        ))}
      </SimpleGrid>
    </fieldset>
  );
}
