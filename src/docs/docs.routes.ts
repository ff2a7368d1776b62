import path from 'node:path';
import express, { type Express } from 'express';
import type { OpenApiRegistry } from '../http/openapi';

const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** `/openapi.json` (generated from the route schemas) and `/docs`, Swagger UI served from local files. */
export function mountDocs(app: Express, registry: OpenApiRegistry, opts: { temporalUiUrl?: string }): void {
  let document: unknown;
  app.get('/openapi.json', (_req, res) => {
    document ??= registry.document();
    res.json(document);
  });
  app.use('/docs/assets', express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1h' }));
  app.get('/docs', (_req, res) => {
    res.type('html').send(docsPage(opts.temporalUiUrl));
  });
}

function docsPage(temporalUiUrl?: string): string {
  const temporalLink = temporalUiUrl
    ? `<a href="${temporalUiUrl}" target="_blank" rel="noopener">Temporal Web UI</a> · `
    : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Voice Agent Platform API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  <style>body { margin: 0 } .topnote { font: 14px sans-serif; padding: 8px 16px; background: #f6f8fa }</style>
</head>
<body>
  <div class="topnote">${temporalLink}<a href="/openapi.json">openapi.json</a></div>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });
  </script>
</body>
</html>`;
}
