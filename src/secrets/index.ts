export { resolveSecrets, secretAad } from './secrets.service';
export { renderSecretHeaders, scrubSecrets, secretNamesIn } from './templates';
