import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ItemType } from './types';

/** The form's text as a JSON object, or why it is not one. */
export function parseManifest(text: string): { manifest: Record<string, unknown> } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { problem: (e as Error).message };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { problem: 'The manifest must be a JSON object' };
  }
  return { manifest: parsed as Record<string, unknown> };
}

/**
 * The server's verdict on the manifest being typed (POST /publisher/validate: the rules submit
 * applies, a taken id, a version not greater than the latest), asked after a pause in typing. Text
 * that is not JSON is reported at once, without asking.
 */
export function useManifestValidation(type: ItemType, text: string, itemId?: string) {
  const [settled] = useDebouncedValue(text, 400);
  const parsed = parseManifest(settled);
  const manifest = 'manifest' in parsed ? parsed.manifest : null;
  const validation = useQuery({
    queryKey: ['marketplace', 'validate', type, itemId, settled],
    enabled: manifest !== null,
    placeholderData: keepPreviousData,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async () =>
      unwrap(
        await api.POST('/api/marketplace/publisher/validate', {
          body: { type, manifest: manifest!, ...(itemId ? { itemId } : {}) },
        }),
      ),
  });
  const typing = settled !== text;
  const current = parseManifest(text);
  return {
    /** Why the text is not a JSON object (as typed now), else null. */
    jsonProblem: 'problem' in current ? current.problem : null,
    /** The verdict on the text as it was when typing paused (stale while typing or checking). */
    validation: manifest ? validation.data : undefined,
    checking: typing || validation.isFetching,
    error: validation.error,
    /** The manifest as typed now, when it parses. */
    manifest: 'manifest' in current ? current.manifest : null,
  };
}
