import os from 'node:os';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createLogger } from '../src/logging/logger';
import { floorTurn, floorWorkflow } from './floor-workflow';
import { interleaved, ONE_TOOL_QUESTION, restTurns, sequential, startBenchPlatform } from './platform';
import { latencyStats, runBench } from './support';

/**
 * bench:sessions — voice-session turns through POST /sessions/:id/turns (API and worker in one
 * child process as `npm start` runs them, Temporal dev server, PostgreSQL, a real MCP server and an LLM double that
 * answers at once, all on this machine):
 * - turn latency of a voice-command turn (a speak-only workflow) and of a one-tool LLM turn (model →
 *   MCP tool → model), each beside the same model and tool calls made directly (one path, model →
 *   tool → model); the difference is the platform's overhead (target p95 ≤ 25 ms), shown also above
 *   the Temporal floor (one Workflow Update running one local activity and no platform code). The
 *   turns, the direct path and the floor are measured interleaved, one of each per round, so that
 *   each meets the same moments of the machine;
 * - 50 concurrent sessions, one turn per second each, for 30 s: turns/s and p95 (targets ≥ 40/s,
 *   p95 ≤ 150 ms);
 * - activities: 20 000 logged through the API in batches of concurrent requests (req/s), then stats
 *   over them (ms).
 * BENCH_SPLIT=1 runs the API and the worker as two processes, as docker-compose.yml does;
 * BENCH_CPU_PROF=<dir> writes their CPU profiles there.
 */

const TURNS = Number(process.env.BENCH_TURNS ?? 150);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 50);
const SUSTAIN_SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const ACTIVITIES = Number(process.env.BENCH_ACTIVITIES ?? 20_000);
const ACTIVITY_BATCH = 32;

const stats = latencyStats;
const ms = (n: number) => `${n.toFixed(1).padStart(6)} ms`;

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  Runtime.install({ logger: new DefaultLogger('WARN') }); // the floor's worker (below) logs warnings only
  // the platform (API and worker in one process, as `npm start` runs them) in a process of its own:
  // this one is the outside world (callers, the model, the MCP server)
  const platform = await startBenchPlatform('sessions', logger);
  const { temporal, mcp, llm, request, key } = platform;
  try {
    await request('POST', '/api/v2/developers/workflows', key, {
      name: 'Opening hours',
      trigger: { type: 'voice_command', config: { command: 'what are your opening hours' } },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'say', type: 'speak', config: { text: 'Nine to five, Monday to Friday.' } },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { sourceId: 'start', targetId: 'say' },
        { sourceId: 'say', targetId: 'end' },
      ],
    });
    const { startSession, turn } = restTurns(platform);

    // direct baselines, same run: the model double's round trip (with the same tools) and the MCP tool
    const mcpClient = new McpClient({ name: 'bench', version: '1' });
    await mcpClient.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    const tools = (await mcpClient.listTools()).tools.map((t) => ({
      type: 'function',
      function: { name: `orders__${t.name}`, description: t.description, parameters: t.inputSchema },
    }));
    const directLlm = async (content: string) => {
      const started = performance.now();
      const res = await fetch(`${llm.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content }], tools }),
      });
      await res.json();
      return performance.now() - started;
    };
    const directTool = async () => {
      const started = performance.now();
      await mcpClient.callTool({ name: 'lookup_order', arguments: { orderId: 'A-1' } });
      return performance.now() - started;
    };

    const commandSession = await startSession('bench-command');
    const toolSession = await startSession('bench-tool');
    const llmTimes = await sequential(() => directLlm('where is my order?'), TURNS);
    const toolTimes = await sequential(directTool, TURNS);
    // the orchestration floor, same run: a Workflow Update running one local activity, no platform code
    // (a worker of this process on a task queue of its own, as the platform's worker runs turns),
    // measured interleaved with the turns, so that both meet the same moments of the machine
    const floor = await startFloor(temporal.address, 'bench-floor');
    // the one-tool turn's own work done directly, as one path: model → tool → model
    const directPath = async () =>
      (await directLlm('where is my order?')) + (await directTool()) + (await directLlm('A-1 shipped'));
    const [floorTimes, refusal, command, oneTool, baseline] = await (async () => {
      try {
        return await interleaved(
          [
            floor.once,
            () => turn(commandSession, 'Can you give me medical advice?', 'refusal'),
            () => turn(commandSession, 'What are your opening hours?', 'workflow'),
            () => turn(toolSession, ONE_TOOL_QUESTION, 'llm'),
            directPath,
          ],
          TURNS,
        );
      } finally {
        await floor.stop();
      }
    })();

    // 50 concurrent sessions, one turn per second each (LLM turns without tools and with one tool, alternating)
    const sessions = await Promise.all(
      Array.from({ length: SESSIONS }, (_, i) => startSession(`caller-${i}`)),
    );
    const sustained: number[] = [];
    let failures = 0;
    const until = performance.now() + SUSTAIN_SECONDS * 1000;
    const sustainStarted = performance.now();
    await Promise.all(
      sessions.map(async (id, i) => {
        await new Promise((r) => setTimeout(r, (i * 1000) / SESSIONS)); // spread the first turns over a second
        for (let n = 0; performance.now() < until; n++) {
          const tick = performance.now();
          try {
            sustained.push(
              await (n % 2 === 0
                ? turn(id, 'Hello there', 'llm')
                : turn(id, 'Where is my order A-1?', 'llm')),
            );
          } catch {
            failures++;
          }
          const wait = 1000 - (performance.now() - tick);
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
      }),
    );
    const sustainSeconds = (performance.now() - sustainStarted) / 1000;
    const load = stats(sustained);

    // activities: 20 000 through the API, ACTIVITY_BATCH at a time, then stats over them
    const logStarted = performance.now();
    for (let done = 0; done < ACTIVITIES; done += ACTIVITY_BATCH) {
      await Promise.all(
        Array.from({ length: Math.min(ACTIVITY_BATCH, ACTIVITIES - done) }, (_, i) =>
          request('POST', '/api/v2/developers/activities', key, {
            type: (done + i) % 3 === 0 ? 'order.placed' : 'page.viewed',
            payload: { amount: (done + i) % 100, page: 'home' },
            userId: `user-${(done + i) % 200}`,
          }),
        ),
      );
    }
    const logRate = ACTIVITIES / ((performance.now() - logStarted) / 1000);
    const statsTimes: number[] = [];
    for (const groupBy of ['type', 'day', 'user', 'type', 'day', 'user', 'type', 'day', 'user', 'type']) {
      const started = performance.now();
      await request('GET', `/api/v2/developers/activities/stats?groupBy=${groupBy}&metric=amount`, key);
      statsTimes.push(performance.now() - started);
    }
    const statsOver = stats(statsTimes);

    console.log(
      `\nbench:sessions — ${os.availableParallelism()} cores; API and worker in one process (npm start) beside this one; LLM double answering at once; real MCP server\n`,
    );
    console.log(`model double, direct round trip          p50 ${ms(llmTimes.p50)}   p95 ${ms(llmTimes.p95)}`);
    console.log(
      `MCP tool, direct (kept session)          p50 ${ms(toolTimes.p50)}   p95 ${ms(toolTimes.p95)}`,
    );
    console.log(
      `Temporal floor: 1 update + 1 local activity, no platform code (${TURNS}×)   p50 ${ms(floorTimes.p50)}   p95 ${ms(floorTimes.p95)}`,
    );
    console.log(
      `refusal turn, the platform's floor (${TURNS}×)   p50 ${ms(refusal.p50)}   p95 ${ms(refusal.p95)}   p99 ${ms(refusal.p99)}`,
    );
    console.log(
      `voice-command turn (${TURNS}×)              p50 ${ms(command.p50)}   p95 ${ms(command.p95)}   p99 ${ms(command.p99)}`,
    );
    console.log(
      `  beside model + tool time: 0 (no model, no tool): overhead p95 ${command.p95.toFixed(1)} ms (target ≤ 25 ms), ${(command.p95 - floorTimes.p95).toFixed(1)} ms above the Temporal floor`,
    );
    console.log(
      `one-tool LLM turn (${TURNS}×)               p50 ${ms(oneTool.p50)}   p95 ${ms(oneTool.p95)}   p99 ${ms(oneTool.p99)}`,
    );
    console.log(
      `  beside model → tool → model, direct: p50 ${baseline.p50.toFixed(1)} ms, p95 ${baseline.p95.toFixed(1)} ms → overhead p50 ${(oneTool.p50 - baseline.p50).toFixed(1)} ms, p95 ${(oneTool.p95 - baseline.p95).toFixed(1)} ms (target ≤ 25 ms), ${(oneTool.p95 - baseline.p95 - floorTimes.p95).toFixed(1)} ms above the Temporal floor`,
    );
    console.log(
      `\n${SESSIONS} sessions × 1 turn/s for ${sustainSeconds.toFixed(1)} s: ${(sustained.length / sustainSeconds).toFixed(1)} turns/s (target ≥ 40), p50 ${load.p50.toFixed(1)} ms, p95 ${load.p95.toFixed(1)} ms (target ≤ 150 ms), ${failures} failed`,
    );
    console.log(
      `\nactivities: ${ACTIVITIES} logged through the API, ${ACTIVITY_BATCH} at a time: ${logRate.toFixed(0)} req/s; stats over them (groupBy type/day/user, metric amount): p50 ${statsOver.p50.toFixed(1)} ms, p95 ${statsOver.p95.toFixed(1)} ms`,
    );
    await mcpClient.close();
  } finally {
    await platform.stop();
  }
}

/**
 * The floor's workflow on a worker of this process (task queue of its own): `once` sends one update
 * and answers its round trip in ms.
 */
async function startFloor(address: string, taskQueue: string) {
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: require.resolve('./floor-workflow'),
    activities: { echo: async (text: string) => text },
  });
  const running = worker.run();
  const client = new Client({ connection: await Connection.connect({ address }) });
  const handle = await client.workflow.start(floorWorkflow, {
    taskQueue,
    workflowId: `${taskQueue}-${Date.now()}`,
  });
  return {
    once: async () => {
      const started = performance.now();
      await handle.executeUpdate(floorTurn, { args: ['hello'] });
      return performance.now() - started;
    },
    stop: async () => {
      await handle.terminate();
      worker.shutdown();
      await running;
      await client.connection.close();
      await connection.close();
    },
  };
}

runBench(main);
