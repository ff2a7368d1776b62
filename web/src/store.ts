import { useSyncExternalStore } from 'react';

/** A tiny observable value kept in Web Storage (so it survives reloads), for useSyncExternalStore. */
export function storedValue<T>(storage: () => Storage, key: string, fallback: T) {
  const listeners = new Set<() => void>();
  let cached: { raw: string | null; value: T } | undefined;
  const read = (): T => {
    const raw = storage().getItem(key);
    if (cached && cached.raw === raw) return cached.value;
    let value = fallback;
    if (raw !== null) {
      try {
        value = JSON.parse(raw) as T;
      } catch {
        value = fallback;
      }
    }
    cached = { raw, value };
    return value;
  };
  return {
    get: read,
    set(value: T | null) {
      if (value === null) storage().removeItem(key);
      else storage().setItem(key, JSON.stringify(value));
      for (const listener of listeners) listener();
    },
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type StoredValue<T> = ReturnType<typeof storedValue<T>>;

/** The stored value, re-rendering the component when it changes. */
export function useStoredValue<T>(store: StoredValue<T>): T {
  return useSyncExternalStore(store.subscribe, store.get);
}
