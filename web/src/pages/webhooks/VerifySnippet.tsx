import { Button, Card, Code, CopyButton, Group, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { VERIFY_SNIPPETS as SNIPPETS } from './verify-snippets';

/** A copyable verification function for the webhook's receiver. */
export function VerifySnippet() {
  const [language, setLanguage] = useState<keyof typeof SNIPPETS>('node');
  const code = SNIPPETS[language];
  return (
    <Card withBorder component="section" aria-labelledby="verify-title">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={2} size="h5" id="verify-title">
            Verify deliveries in your receiver
          </Title>
          <SegmentedControl
            aria-label="Language"
            size="xs"
            value={language}
            onChange={(v) => setLanguage(v as keyof typeof SNIPPETS)}
            data={[
              { value: 'node', label: 'Node.js' },
              { value: 'python', label: 'Python' },
            ]}
          />
        </Group>
        <Text size="sm">
          Reject a request whose <Code>X-Service-Signature</Code> does not match: an HMAC-SHA256 of the
          timestamp and the exact body, keyed with the signing secret (during a rotation, either secret
          matches).
        </Text>
        <Code block data-testid="verify-snippet" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {code}
        </Code>
        <CopyButton value={code}>
          {({ copied, copy }) => (
            <Button variant="default" size="xs" onClick={copy} w="fit-content">
              {copied ? 'Copied' : 'Copy the code'}
            </Button>
          )}
        </CopyButton>
      </Stack>
    </Card>
  );
}
