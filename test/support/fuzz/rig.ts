import { randomUUID } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';
import { startWorker } from '../../../src/app/runtime';
import { TEST_ENV } from '../env';
import { startLlmDouble } from '../llm-double';
import { type McpTestServer, startMcpTestServer } from '../mcp-test-server';
import { type Receiver, startReceiver } from '../receiver';
import { startTestApp, type TestApp } from '../test-app';
import { LogCapture } from './log-capture';

/**
 * Everything a fuzz run talks to: a test app whose log lines (its worker's too) are captured, a worker
 * on a queue of its own (so tool, webhook and workflow runs log into the capture), a model double, a
 * webhook receiver, an MCP server and an OAuth authorization server.
 */
export interface FuzzRig {
  app: TestApp;
  logs: LogCapture;
  receiver: Receiver;
  mcp: McpTestServer;
  oauth: OAuth2Server;
  /** Access tokens the OAuth server issued: secrets, never answered or logged. */
  issuedTokens: string[];
  /**
   * What the run's servers received since the last call (webhook and tool requests, MCP requests'
   * headers, OAuth token requests), as text: where a secret resolved for the wrong account would go.
   */
  outboundSinceLast(): string[];
  close(): Promise<void>;
}

export async function startFuzzRig(label: string): Promise<FuzzRig> {
  const logs = new LogCapture();
  const llm = await startLlmDouble();
  const receiver = await startReceiver();
  const mcp = await startMcpTestServer();
  const oauth = new OAuth2Server();
  await oauth.issuer.keys.generate('RS256');
  await oauth.start(0, '127.0.0.1');
  const issuedTokens: string[] = [];
  oauth.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    token.payload.jti = randomUUID();
  });
  const tokenRequests: string[] = [];
  oauth.service.on(
    'beforeResponse',
    (
      response: { body: { access_token?: string; refresh_token?: string } },
      req: { body: unknown; headers: unknown },
    ) => {
      for (const t of [response.body.access_token, response.body.refresh_token]) if (t) issuedTokens.push(t);
      tokenRequests.push(JSON.stringify([req.headers, req.body]));
    },
  );
  const seen = { receiver: 0, mcp: 0, oauth: 0 };
  const app = await startTestApp(
    {
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'test-model',
      TEMPORAL_TASK_QUEUE: `vp-fuzz-${label}-${process.pid}`,
      RATE_LIMITS: 'off',
      // every line the app writes, down to debug, is searched for secrets
      LOG_LEVEL: 'debug',
      WEBHOOK_TIMEOUT_MS: '1000',
    },
    { logDestination: logs },
  );
  // with its dispatcher: events of the run are delivered here (and so logged here) as often as not
  const worker = await startWorker(app.ctx, TEST_ENV.temporalAddress());
  return {
    app,
    logs,
    receiver,
    mcp,
    oauth,
    issuedTokens,
    outboundSinceLast: () => {
      const received = [
        ...receiver.requests.slice(seen.receiver).map((r) => JSON.stringify([r.path, r.headers, r.rawBody])),
        ...mcp.requests.slice(seen.mcp).map((headers) => JSON.stringify(headers)),
        ...tokenRequests.slice(seen.oauth),
      ];
      Object.assign(seen, {
        receiver: receiver.requests.length,
        mcp: mcp.requests.length,
        oauth: tokenRequests.length,
      });
      return received;
    },
    close: async () => {
      await worker.stop();
      await app.close();
      await Promise.all([llm.close(), receiver.close(), mcp.close(), oauth.stop()]);
    },
  };
}
