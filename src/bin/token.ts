import { z } from 'zod';
import { signDevToken } from '../auth/dev-idp';
import { loadConfigOrExit } from './config';

/** `npm run token -- you@example.com`: prints a console ID token from the local dev identity provider. */
async function main(): Promise<void> {
  const { config } = loadConfigOrExit('token');
  if (config.auth) {
    console.error('AUTH_* are set: console tokens come from your identity provider, not the dev one.');
    process.exit(2);
  }
  const email = z.email().safeParse(process.argv[2]);
  if (!email.success) {
    console.error('usage: npm run token -- you@example.com');
    process.exit(2);
  }
  console.log(await signDevToken(config.dataDir, email.data));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
