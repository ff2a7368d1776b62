import fs from 'node:fs';
import path from 'node:path';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { signDevToken } from '../auth/dev-idp';
import type { AppContext } from '../common/context';
import { ApiError } from '../http/errors';
import { parseOrThrow } from '../http/validation';

/** Where the console is served. */
export const CONSOLE_PATH = '/console';

/**
 * The built console (`npm run build:web` writes it to dist/console): beside the compiled server
 * (dist/src/console-web → dist/console) or, run from source, in the repository's dist/.
 */
export function consoleDir(): string {
  const candidates = [
    path.resolve(__dirname, '../../console'),
    path.resolve(__dirname, '../../dist/console'),
  ];
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'index.html'))) ?? candidates[1];
}

/** What the console needs to know before sign-in (served as /console/config.json). */
export interface ConsoleConfig {
  auth:
    | { mode: 'dev' }
    | {
        mode: 'oidc';
        issuer: string;
        /** The OAuth client id: the ID tokens' audience (`AUTH_AUDIENCE`). */
        clientId: string;
        scope: string;
      };
  /** Links to executions in the Temporal Web UI: `${url}/namespaces/${namespace}/workflows/${id}`. */
  temporal: { uiUrl: string | null; namespace: string };
}

export function consoleConfig(ctx: Pick<AppContext, 'config' | 'temporalUiUrl'>): ConsoleConfig {
  const auth = ctx.config.auth;
  return {
    auth: auth
      ? { mode: 'oidc', issuer: auth.issuer, clientId: auth.audience, scope: 'openid email profile' }
      : { mode: 'dev' },
    temporal: {
      uiUrl: ctx.temporalUiUrl ?? ctx.config.temporal.uiUrl ?? null,
      namespace: ctx.config.temporal.namespace,
    },
  };
}

const DevTokenBody = z.strictObject({ email: z.email().max(250) });

/** Hashed file names (Vite's `name-[hash].js`): their content never changes, so they are cached for a year. */
const HASHED_ASSET = /-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

/** Content types of the files the console build writes. */
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/**
 * Security headers of every console response. Styles may be inline (the component library sets
 * CSS variables in a style element); audio previews are data URLs; the OIDC provider is reached by
 * fetch for discovery and the code exchange.
 */
function securityHeaders(connectSrc: string[]) {
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "media-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src ${["'self'", ...connectSrc].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');
  return (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    next();
  };
}

/**
 * The web console at /console, from the files the console build wrote (no CDN):
 * - `/console/assets/*`: hashed files, cached for a year (`immutable`), served precompressed
 *   (`.br`, `.gz` written by the build) when the browser accepts it;
 * - `/console/config.json`: sign-in mode and Temporal Web UI link;
 * - `POST /console/auth/dev-token` `{ email }`: in development only (no `AUTH_*` configured, never in
 *   production), an ID token of the local identity provider, like `npm run token`;
 * - any other path under /console: index.html (the console routes in the browser), never cached.
 */
export function mountConsole(app: Express, ctx: AppContext): void {
  const dir = consoleDir();
  const config = consoleConfig(ctx);
  const connectSrc = config.auth.mode === 'oidc' ? [new URL(config.auth.issuer).origin] : [];
  const router = express.Router();
  router.use(securityHeaders(connectSrc));

  router.get('/config.json', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(config);
  });

  router.post('/auth/dev-token', async (req, res) => {
    if (config.auth.mode !== 'dev' || ctx.config.isProduction) {
      throw new ApiError(
        404,
        'NOT_FOUND',
        'The local identity provider is off: sign in with the configured OIDC provider',
      );
    }
    await ctx.rateLimits.consumeAnonymous(res, req.ip ?? 'unknown');
    const { email } = parseOrThrow(DevTokenBody, req.body ?? {}, 'body');
    res.setHeader('Cache-Control', 'no-store');
    res.json({ idToken: await signDevToken(ctx.config.dataDir, email) });
  });

  router.get('/assets/*file', (req, res, next) => {
    const name = path.basename(req.path);
    const file = path.join(dir, 'assets', name);
    if (name.startsWith('.') || !fs.existsSync(file)) {
      next(new ApiError(404, 'NOT_FOUND', `No console asset ${name}`));
      return;
    }
    const ext = path.extname(name);
    const accepts = String(req.headers['accept-encoding'] ?? '');
    const encoding = ['br', 'gzip'].find(
      (enc) =>
        new RegExp(`\\b${enc}\\b`).test(accepts) && fs.existsSync(`${file}.${enc === 'br' ? 'br' : 'gz'}`),
    );
    res.setHeader(
      'Cache-Control',
      HASHED_ASSET.test(name) ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
    );
    res.setHeader('Vary', 'Accept-Encoding');
    if (CONTENT_TYPES[ext]) res.setHeader('Content-Type', CONTENT_TYPES[ext]);
    if (encoding) {
      res.setHeader('Content-Encoding', encoding);
      res.sendFile(`${file}.${encoding === 'br' ? 'br' : 'gz'}`, {
        headers: { 'Content-Type': CONTENT_TYPES[ext] },
      });
      return;
    }
    res.sendFile(file);
  });

  router.get('/{*page}', (_req, res) => {
    const index = path.join(dir, 'index.html');
    if (!fs.existsSync(index)) {
      res
        .status(503)
        .type('text/plain')
        .send('The web console is not built: run `npm run build:web` (npm start and npm run build do it).');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });

  app.use(CONSOLE_PATH, router);
}
