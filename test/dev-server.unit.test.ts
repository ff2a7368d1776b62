import pino from 'pino';
import { TEMPORAL_DYNAMIC_CONFIG } from '../src/temporal/cluster/dynamic-config';
import { devServerArgs, isPortRace } from '../src/temporal/dev-server';

describe('Temporal dev server start', () => {
  it('starts again on new ports only when the server lost a port race', () => {
    const bindFailure = new Error(
      'Temporal dev server did not start: exited with 1\n{"level":"FATAL","message":"listen tcp 127.0.0.1:35205: bind: address already in use"}',
    );
    expect(isPortRace(bindFailure)).toBe(true);
    expect(
      isPortRace(Object.assign(new Error('listen EADDRINUSE: 127.0.0.1:7233'), { code: 'EADDRINUSE' })),
    ).toBe(true);
    // A port the caller asked for that is taken before starting is the caller's problem, not a race.
    expect(isPortRace(new Error('Port 7233 on 127.0.0.1 is already in use'))).toBe(false);
    expect(isPortRace(new Error('not ready after 60s: no answer'))).toBe(false);
    expect(isPortRace('address already in use')).toBe(false);
  });

  it("runs with the cluster's dynamic config: eager activities, the transfer queue read 200 times a second", () => {
    const args = devServerArgs(
      '127.0.0.1',
      { port: 1, uiPort: 2, httpPort: 3, metricsPort: 4 },
      { logger: pino({ level: 'silent' }), namespace: 'default', searchAttributes: {} },
    );
    const values = args.filter((_, i) => args[i - 1] === '--dynamic-config-value');
    expect(values).toEqual(
      Object.entries(TEMPORAL_DYNAMIC_CONFIG).map(([key, { value }]) => `${key}=${JSON.stringify(value)}`),
    );
    expect(values).toEqual(
      expect.arrayContaining([
        'system.enableActivityEagerExecution=true',
        'history.transferProcessorMaxPollRPS=200',
      ]),
    );
  });
});
