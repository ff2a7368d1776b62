import { startWorker } from '../../src/app/runtime';
import { TEST_ENV } from './env';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './test-app';

/** A test app (and, unless `worker: false`, a worker on its own task queue) with one developer. */
export interface KnowledgeRig {
  app: TestApp;
  dev: Developer;
  /** The platform API as the developer's test key (or `token`): status and body. */
  api(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  /** POST /knowledge-bases/:id/sources as multipart/form-data with one `file` part. */
  upload(
    baseId: string,
    file: { fileName: string; contentType: string; bytes: Uint8Array; name?: string },
    token?: string,
  ): Promise<{ status: number; body: any }>;
  /** Polls a source until its status is one of `statuses`. */
  waitForSource(baseId: string, sourceId: string, statuses: string[], timeoutMs?: number): Promise<any>;
  stop(): Promise<void>;
}

export async function startKnowledgeRig(
  env: Record<string, string> = {},
  opts: { worker?: boolean } = {},
): Promise<KnowledgeRig> {
  const app = await startTestApp({
    TEMPORAL_TASK_QUEUE: `kb-${process.pid}-${Date.now().toString(36)}`,
    RATE_LIMITS: 'off',
    ...env,
  });
  const worker =
    opts.worker === false
      ? undefined
      : await startWorker(app.ctx, TEST_ENV.temporalAddress(), { listen: false, dispatch: false });
  const dev = await newDeveloper(app, 'knowledge');
  const api: KnowledgeRig['api'] = async (method, path, body, token = dev.testKey) => {
    const res = await call(app.baseUrl, method, `/api/v2/developers${path}`, { token, body });
    return { status: res.status, body: res.body };
  };
  const upload: KnowledgeRig['upload'] = async (baseId, file, token = dev.testKey) => {
    const form = new FormData();
    if (file.name) form.append('name', file.name);
    form.append('file', new Blob([file.bytes], { type: file.contentType }), file.fileName);
    const res = await fetch(`${app.baseUrl}/api/v2/developers/knowledge-bases/${baseId}/sources`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const waitForSource: KnowledgeRig['waitForSource'] = async (
    baseId,
    sourceId,
    statuses,
    timeoutMs = 30_000,
  ) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await api('GET', `/knowledge-bases/${baseId}/sources/${sourceId}`);
      if (statuses.includes(res.body.data?.status)) return res.body.data;
      if (Date.now() > deadline) throw new Error(`source ${sourceId}: ${JSON.stringify(res.body)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return {
    app,
    dev,
    api,
    upload,
    waitForSource,
    async stop() {
      await worker?.stop();
      await app.close();
    },
  };
}
