import { createContext, useContext } from 'react';
import { type Draft, getIn } from './manifestPaths';

/** What every field of the persona form reads: the draft, its setter, the problems placed on fields. */
export interface PersonaFormState {
  draft: Draft;
  set(path: string, value: unknown): void;
  problems: Map<string, string[]>;
  disabled: boolean;
}

export const PersonaFormContext = createContext<PersonaFormState | null>(null);

/** One field of the draft: its raw value, its setter, its problems (as one line), its input id. */
export function useField(path: string) {
  const form = useContext(PersonaFormContext);
  if (!form) throw new Error('useField outside PersonaFormContext');
  const problems = form.problems.get(path);
  return {
    value: getIn(form.draft, path),
    set: (value: unknown) => form.set(path, value),
    error: problems?.length ? problems.join('; ') : undefined,
    disabled: form.disabled,
    id: `persona-field-${path.replaceAll('.', '-')}`,
    draft: form.draft,
  };
}
