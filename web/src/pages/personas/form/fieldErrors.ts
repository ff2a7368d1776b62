/** The manifest fields the form shows, by path: the fields an error or warning can be shown on. */
export const FORM_FIELDS = new Set([
  'identity.id',
  'identity.name',
  'identity.tagline',
  'identity.description',
  'identity.aliases',
  'voice.voice_id',
  'voice.model',
  'personality.warmth',
  'personality.humor_level',
  'personality.directness',
  'personality.formality',
  'personality.traits',
  'knowledge.category',
  'knowledge.domains',
  'knowledge.expertise_tags',
  'knowledge.out_of_scope_topics',
  'behaviors.greetings',
  'behaviors.backchannels',
  'behaviors.thinking_sounds',
  'behaviors.record_calls',
  'conversation.instructions',
  'conversation.language',
  'conversation.model.name',
  'conversation.model.temperature',
  'conversation.model.maxTokens',
  'conversation.model.provider',
  'conversation.transcriber.provider',
  'conversation.transcriber.model',
  'conversation.transcriber.language',
  'tools',
  'telephony.transferDestinations',
  'telephony.keypad.terminator',
  'telephony.keypad.timeoutMs',
  'telephony.closingLine',
  'telephony.voicemailMessage',
]);

/** A transfer destination's own input (`telephony.transferDestinations.0.destination`): placed as is. */
const DESTINATION_INPUT = /^telephony\.transferDestinations\.\d+\.(destination|name|description)$/;

/** Paths whose problems are shown on another field (the voice picker sets both voice fields). */
const SHOWN_ON: Record<string, string> = { 'voice.provider': 'voice.voice_id' };

/** Problems by the form field they concern; `unplaced` are those no field of the form shows. */
export interface PlacedProblems {
  byField: Map<string, string[]>;
  unplaced: string[];
}

/**
 * Places the API's `<path>: <problem>` lines (the validation endpoint's, or a refused PUT's
 * `manifest.<path>: <problem>`) on the form's fields. A list item's problem (`behaviors.greetings[1]`
 * or `behaviors.greetings.1`) goes on its list, naming the item.
 */
export function placeProblems(problems: string[]): PlacedProblems {
  const byField = new Map<string, string[]>();
  const unplaced: string[] = [];
  for (const problem of problems) {
    const match = /^(?:manifest\.)?([A-Za-z_][\w.[\]]*): ([\s\S]*)$/.exec(problem);
    if (match && DESTINATION_INPUT.test(match[1])) {
      byField.set(match[1], [...(byField.get(match[1]) ?? []), match[2]]);
      continue;
    }
    // a tool entry's allow-list (`tools[2].tools`) is shown on the tools field, as that entry's
    if (match) match[1] = match[1].replace(/^(tools(?:\[\d+\]|\.\d+))\.tools$/, '$1');
    const item = match ? /(?:\[(\d+)\]|\.(\d+))$/.exec(match[1]) : null;
    const path = match ? match[1].replace(/(?:\[\d+\]|\.\d+)$/, '') : '';
    const field = SHOWN_ON[path] ?? path;
    if (!match || !FORM_FIELDS.has(field)) {
      unplaced.push(problem);
      continue;
    }
    const index = item ? Number(item[1] ?? item[2]) : null;
    const prefix = index === null ? '' : `item ${index + 1}: `;
    const named = field === path ? '' : `${path.split('.').pop()} `;
    const list = byField.get(field) ?? [];
    list.push(`${prefix}${named}${match[2]}`);
    byField.set(field, list);
  }
  return { byField, unplaced };
}
