/** A keypad entry as a turn (docs/telephony.md "Keypad input"): the caller's keys, said as text. */

/** What the agent hears of a keypad entry: `keypad: 1234`. */
export const keypadInput = (keys: string) => `keypad: ${keys}`;

/** The keys of a turn that is a keypad entry (`keypad: 1234`), else undefined. */
export function keypadDigits(text: string): string | undefined {
  return /^keypad: ([0-9*#A-D]{1,32})$/.exec(text)?.[1];
}
