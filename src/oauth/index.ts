export { accessTokenFor, oauthTokenProblem } from './tokens.service';
