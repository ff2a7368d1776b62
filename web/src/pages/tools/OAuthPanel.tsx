import { Stack } from '@mantine/core';
import { OAuthConnections } from './OAuthConnections';
import { OAuthProviders } from './OAuthProviders';

/** OAuth: the providers, and the accounts connected through them. */
export function OAuthPanel() {
  return (
    <Stack gap="xl">
      <section>
        <OAuthProviders />
      </section>
      <section>
        <OAuthConnections />
      </section>
    </Stack>
  );
}
