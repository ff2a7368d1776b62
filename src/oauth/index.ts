export { verifierAad } from './authorization.service';
export { secretAad as clientSecretAad } from './oauth-client';
export { accessTokenFor, oauthTokenProblem, tokenAad } from './tokens.service';
