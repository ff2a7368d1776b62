import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const OUT_DIR = path.resolve(__dirname, '../dist/console');

/** Writes `.br` and `.gz` beside every JS and CSS asset, so the API serves them precompressed. */
function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    closeBundle() {
      const assets = path.join(OUT_DIR, 'assets');
      for (const name of fs.readdirSync(assets)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const source = fs.readFileSync(path.join(assets, name));
        fs.writeFileSync(path.join(assets, `${name}.gz`), zlib.gzipSync(source, { level: 9 }));
        fs.writeFileSync(
          path.join(assets, `${name}.br`),
          zlib.brotliCompressSync(source, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
      }
    },
  };
}

// `npm run web:dev` serves the console with hot reload and sends API calls to `npm start` (port 3000).
export default defineConfig({
  root: __dirname,
  base: '/console/',
  plugins: [react(), precompress()],
  // the microphone's AudioWorklet (web/src/voice/capture-worklet.ts) is built as a worker script; an
  // AudioWorklet loads modules, and Vite's classic dev workers would call importScripts, which it lacks
  worker: { format: 'es' },
  build: {
    outDir: OUT_DIR,
    emptyOutDir: true,
    target: 'es2022',
    // the budget is checked by `npm run bench:console`; this only warns about a single large chunk
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: {
      // ws: the test call's live stream (GET /api/v2/developers/sessions/:id/stream) is a WebSocket
      '/api': { target: 'http://localhost:3000', ws: true },
      '/console/config.json': 'http://localhost:3000',
      '/console/auth/dev-token': 'http://localhost:3000',
    },
  },
});
