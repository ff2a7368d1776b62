import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { type TranscriptEntry, type TranscriptEvent, transcriptReducer } from './call-transcript';
import { type CallState, TestCall } from './test-call';

/** A test call for a component: its state, its live transcript, and what the caller can do. */
export interface TestCallHandle {
  /** Undefined until the first call starts. */
  state: CallState | undefined;
  entries: TranscriptEntry[];
  start(personaId: string): void;
  sendText(text: string): void;
  sendKeys(digits: string): void;
  setMicrophone(on: boolean): void;
  interrupt(): void;
  end(): void;
}

/** The transcript, emptied by `null` (a new call). */
const reduce = (entries: TranscriptEntry[], event: TranscriptEvent | null) =>
  event === null ? [] : transcriptReducer(entries, event);

/** One test call at a time; leaving the page ends it. */
export function useTestCall(): TestCallHandle {
  const [state, setState] = useState<CallState>();
  const [entries, dispatch] = useReducer(reduce, []);
  const call = useRef<TestCall | null>(null);
  useEffect(() => () => call.current?.close(), []);

  const start = useCallback((personaId: string) => {
    call.current?.close();
    dispatch(null);
    const current = new TestCall({
      event: (event) => {
        if (call.current === current) dispatch(event);
      },
      state: (next) => {
        if (call.current === current) setState(next);
      },
    });
    call.current = current;
    void current.start(personaId);
  }, []);

  return {
    state,
    entries,
    start,
    sendText: useCallback((text: string) => call.current?.sendText(text), []),
    sendKeys: useCallback((digits: string) => call.current?.sendKeys(digits), []),
    setMicrophone: useCallback((on: boolean) => void call.current?.setMicrophone(on), []),
    interrupt: useCallback(() => call.current?.interrupt(), []),
    end: useCallback(() => call.current?.end(), []),
  };
}
