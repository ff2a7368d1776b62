import { createContext, useContext } from 'react';
import { type Draft, getIn } from './manifestPaths';

/** What every field of the persona form reads: the draft, its setter, the problems placed on fields. */
export interface PersonaFormState {
  draft: Draft;
  set(path: string, value: unknown): void;
  problems: Map<string, string[]>;
  disabled: boolean;
  /**
   * Whose problems are shown on their field: every field's once the draft was saved from this page,
   * before that only those of the fields the person has left (blur), so a new draft does not open
   * covered in errors it was never asked to meet yet (the validation panel lists them all).
   */
  shown: 'all' | ReadonlySet<string>;
  /** The person left this field: its problems show from now on. */
  touch(path: string): void;
}

export const PersonaFormContext = createContext<PersonaFormState | null>(null);

/** One field of the draft: its raw value, its setter, its problems (as one line, once shown), its input id. */
export function useField(path: string) {
  const form = useContext(PersonaFormContext);
  if (!form) throw new Error('useField outside PersonaFormContext');
  const problems = form.shown === 'all' || form.shown.has(path) ? form.problems.get(path) : undefined;
  return {
    value: getIn(form.draft, path),
    set: (value: unknown) => form.set(path, value),
    /** For the field's onBlur: its problems show from then on. */
    touch: () => form.touch(path),
    error: problems?.length ? problems.join('; ') : undefined,
    disabled: form.disabled,
    id: `persona-field-${path.replaceAll('.', '-')}`,
    draft: form.draft,
  };
}
