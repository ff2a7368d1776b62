/**
 * A persona's draft the server has not accepted yet (refused, not parsing, or not sent), kept in
 * localStorage by persona id so a reload or a closed tab loses nothing. It is removed once a save
 * of that text succeeds, or when the developer discards it.
 */
export interface StoredDraft {
  /** The JSON editor's text, as typed (it may not parse). */
  text: string;
  /** The persona's version the draft was made from. */
  version: number;
}

const key = (personaId: string) => `vp.console.persona-draft.${personaId}`;

export function readStoredDraft(personaId: string): StoredDraft | null {
  try {
    const raw = localStorage.getItem(key(personaId));
    if (raw === null) return null;
    const parsed = JSON.parse(raw) as Partial<StoredDraft>;
    return typeof parsed.text === 'string' && typeof parsed.version === 'number'
      ? { text: parsed.text, version: parsed.version }
      : null;
  } catch {
    return null;
  }
}

export function writeStoredDraft(personaId: string, draft: StoredDraft): void {
  try {
    localStorage.setItem(key(personaId), JSON.stringify(draft));
  } catch {
    // storage full or disabled: the draft still lives in the page
  }
}

export function clearStoredDraft(personaId: string): void {
  localStorage.removeItem(key(personaId));
}
