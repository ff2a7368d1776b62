export { resolveSecrets } from './secrets.service';
export { renderSecretHeaders, scrubSecrets, secretNamesIn } from './templates';
