import { isPortRace } from '../src/temporal/dev-server';

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
});
