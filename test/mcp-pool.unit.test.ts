import { McpConnectionPool } from '../src/mcp/mcp-pool';

/** Connections that record their closing, standing in for MCP clients in the pool's own rules. */
function connections() {
  const closed: string[] = [];
  let opened = 0;
  const connect = (name: string) => async () => {
    opened++;
    return { client: name, close: async () => void closed.push(name) };
  };
  return { closed, connect, opened: () => opened };
}
const judge = {
  broken: (e: unknown) => e instanceof TypeError,
  retry: (e: unknown) => e instanceof RangeError,
};
const flush = () => new Promise((r) => setImmediate(r));

afterEach(() => jest.useRealTimers());

describe('McpConnectionPool', () => {
  it('reuses a key, closes idle connections after idleMs but never a busy one', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const c = connections();
    const pool = new McpConnectionPool<string>({ idleMs: 10_000, max: 10 });
    expect(await pool.use('a', c.connect('a'), async (x) => x, judge)).toBe('a');
    expect(await pool.use('a', c.connect('a2'), async (x) => x, judge)).toBe('a');
    expect(c.opened()).toBe(1);
    let release!: () => void;
    const busy = pool.use('b', c.connect('b'), () => new Promise<void>((r) => (release = r)), judge);
    await jest.advanceTimersByTimeAsync(15_000);
    await flush();
    expect(c.closed).toEqual(['a']);
    release();
    await busy;
    await jest.advanceTimersByTimeAsync(15_000);
    await flush();
    expect(c.closed).toEqual(['a', 'b']);
    expect(pool.size).toBe(0);
    await pool.close();
  });

  it('keeps at most max, closing the least recently used idle one', async () => {
    const c = connections();
    const pool = new McpConnectionPool<string>({ idleMs: 60_000, max: 2 });
    for (const key of ['a', 'b', 'a', 'c']) await pool.use(key, c.connect(key), async () => undefined, judge);
    await flush();
    expect(c.closed).toEqual(['b']);
    expect(pool.size).toBe(2);
    await pool.close();
    expect(c.closed.sort()).toEqual(['a', 'b', 'c']);
  });

  it('does not keep a failed connect; drops a broken connection; retries once when told to', async () => {
    const c = connections();
    const pool = new McpConnectionPool<string>({ idleMs: 60_000, max: 10 });
    const refused = pool.use(
      'a',
      async () => {
        throw new Error('refused');
      },
      async () => 'never',
      judge,
    );
    await expect(refused).rejects.toThrow('refused');
    expect(pool.size).toBe(0);

    await expect(
      pool.use('a', c.connect('a'), async () => Promise.reject(new TypeError('socket hang up')), judge),
    ).rejects.toThrow('socket hang up');
    await flush();
    expect(c.closed).toEqual(['a']);

    let calls = 0;
    const retried = await pool.use(
      'b',
      c.connect('b'),
      async (x) => {
        calls++;
        if (calls === 1) throw Object.assign(new RangeError('session expired'));
        return x;
      },
      { broken: () => true, retry: judge.retry },
    );
    expect(retried).toBe('b');
    expect(calls).toBe(2);
    await pool.close();
  });
});
