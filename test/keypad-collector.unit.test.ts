import { KeypadCollector, type KeypadEnd } from '../src/sessions/stream/keypad-collector';

describe('keypad input: keys collected into entries', () => {
  let entries: [string, KeypadEnd][];
  const collector = (opts: ConstructorParameters<typeof KeypadCollector>[0] = {}) =>
    new KeypadCollector(opts, (keys, end) => entries.push([keys, end]));
  beforeEach(() => {
    entries = [];
    jest.useFakeTimers();
  });
  afterEach(() => jest.useRealTimers());

  it('ends an entry at the terminator, which is not part of it', () => {
    const keypad = collector();
    for (const key of '1234#') keypad.press(key);
    expect(entries).toEqual([['1234', 'terminator']]);
    jest.advanceTimersByTime(10_000);
    expect(entries).toHaveLength(1); // the pause after it ends nothing more
  });

  it('ends an entry after the pause, 2 s by default, each key restarting it', () => {
    const keypad = collector();
    keypad.press('4');
    jest.advanceTimersByTime(1_500);
    keypad.press('2');
    jest.advanceTimersByTime(1_999);
    expect(entries).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(entries).toEqual([['42', 'timeout']]);
  });

  it('takes its terminator and pause from the persona, or no terminator at all', () => {
    const star = collector({ terminator: '*', timeoutMs: 500 });
    for (const key of '9#*') star.press(key);
    expect(entries).toEqual([['9#', 'terminator']]);
    const none = collector({ terminator: null, timeoutMs: 500 });
    for (const key of '12#') none.press(key);
    jest.advanceTimersByTime(500);
    expect(entries.at(-1)).toEqual(['12#', 'timeout']);
  });

  it('ends an entry at its longest, and ignores a terminator with nothing before it', () => {
    const keypad = collector({ maxDigits: 3 });
    for (const key of '#12345') keypad.press(key);
    expect(entries).toEqual([['123', 'max']]);
    jest.advanceTimersByTime(2_000);
    expect(entries).toEqual([
      ['123', 'max'],
      ['45', 'timeout'],
    ]);
  });

  it('drops an entry under way when the call ends', () => {
    const keypad = collector();
    keypad.press('7');
    keypad.cancel();
    jest.advanceTimersByTime(5_000);
    expect(entries).toEqual([]);
  });
});
