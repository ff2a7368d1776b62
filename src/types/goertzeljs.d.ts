/** goertzeljs 4 (MIT): the Goertzel algorithm, one filter per frequency over the samples given since `refresh()`. */
declare module 'goertzeljs' {
  export default class Goertzel {
    constructor(options: { frequencies: number[]; sampleRate: number; getPhase?: boolean });
    /** Runs one sample through every frequency's filter. */
    processSample(sample: number): void;
    /** Zeroes every filter: call between windows. */
    refresh(): void;
    /**
     * Per frequency: the filter's power relative to the window's total power and length; about 0.5
     * for a pure sine at that frequency, near 0 where it is absent.
     */
    energies: Record<number, number>;
  }
}
