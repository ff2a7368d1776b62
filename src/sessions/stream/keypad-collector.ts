/** How a call or a live stream collects the keys its caller presses (a persona's `telephony.keypad`, to come). */
export interface KeypadOptions {
  /** The key that ends an entry now (default `#`); null: none, the pause alone ends it. */
  terminator?: string | null;
  /** The pause after the last key that ends an entry (default 2 000 ms). */
  timeoutMs?: number;
  /** An entry ends once it has this many keys (default 32). */
  maxDigits?: number;
}

/** Why an entry ended. */
export type KeypadEnd = 'terminator' | 'timeout' | 'max';

export const KEYPAD_DEFAULTS = { terminator: '#', timeoutMs: 2_000, maxDigits: 32 } as const;

/**
 * Collects a caller's key presses (a carrier's `dtmf` messages, or the live stream's `input.dtmf`)
 * into entries: an entry ends at the terminator (not part of it), after `timeoutMs` without a key, or
 * at `maxDigits` keys, and `onEntry` hears its keys (the agent then hears "keypad: 1234"). A
 * terminator pressed with nothing before it ends nothing.
 */
export class KeypadCollector {
  private keys = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly terminator: string | null;
  private readonly timeoutMs: number;
  private readonly maxDigits: number;

  constructor(
    opts: KeypadOptions,
    private readonly onEntry: (keys: string, end: KeypadEnd) => void,
  ) {
    this.terminator = opts.terminator === undefined ? KEYPAD_DEFAULTS.terminator : opts.terminator;
    this.timeoutMs = opts.timeoutMs ?? KEYPAD_DEFAULTS.timeoutMs;
    this.maxDigits = opts.maxDigits ?? KEYPAD_DEFAULTS.maxDigits;
  }

  /** One key pressed. */
  press(key: string): void {
    if (key === this.terminator) {
      if (this.keys) this.end('terminator');
      return;
    }
    this.keys += key;
    clearTimeout(this.timer);
    if (this.keys.length >= this.maxDigits) this.end('max');
    else this.timer = setTimeout(() => this.end('timeout'), this.timeoutMs);
  }

  /** Drops an entry under way (the call ended). */
  cancel(): void {
    clearTimeout(this.timer);
    this.keys = '';
  }

  private end(end: KeypadEnd): void {
    clearTimeout(this.timer);
    const keys = this.keys;
    this.keys = '';
    this.onEntry(keys, end);
  }
}
