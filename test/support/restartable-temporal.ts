import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../src/logging/logger';
import { startTemporalDevServer } from '../../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { freePort } from './resilience';

/** A Temporal dev server on a SQLite file, so it can be restarted on its port without losing a workflow. */
export async function startRestartableTemporal(label: string) {
  // The file must outlive the server's restart, not the machine's: on tmpfs when there is one, so the
  // figures measure the platform rather than this disk's fsyncs.
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const dir = fs.mkdtempSync(path.join(base, `vp-${label}-`));
  const serverOpts = {
    logger: createLogger('silent'),
    namespace: 'default',
    dbFilename: path.join(dir, 'temporal.sqlite'),
    port: await freePort(),
    uiPort: await freePort(),
    searchAttributes: SEARCH_ATTRIBUTES,
  };
  let server = await startTemporalDevServer(serverOpts);
  let restarting: Promise<number> | undefined;
  let stopped = false;
  const restart = async () => {
    const stoppedAt = performance.now();
    await server.stop();
    if (!stopped) server = await startTemporalDevServer(serverOpts);
    return (performance.now() - stoppedAt) / 1000;
  };
  return {
    address: server.address,
    /** Stops the server and starts it again; answers the seconds it was down. */
    restart: () => {
      restarting = restart();
      return restarting;
    },
    /** Stops it for good, after a restart under way (which then starts nothing). */
    stop: async () => {
      stopped = true;
      await restarting?.catch(() => undefined);
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
