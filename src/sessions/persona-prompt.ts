import { canonicalLanguage, type PersonaManifest } from '../personas';

/**
 * What the model is told and how it is called, from the persona's manifest: the system prompt
 * (identity, personality, knowledge, the agent's own instructions and language, the caller's recent
 * activities) and the `conversation` group's settings.
 */

/** The `conversation` group as a turn uses it: the model's name defaults to LLM_MODEL. */
export interface ConversationSettings {
  instructions: string | null;
  language: string | null;
  /** `provider`: the account's chat provider (null: the platform's, LLM_*). */
  model: { provider: string | null; name: string; temperature: number | null; maxTokens: number | null };
}

export function conversationSettings(manifest: PersonaManifest, defaultModel: string): ConversationSettings {
  const { instructions, language, model = {} } = manifest.conversation ?? {};
  return {
    instructions: instructions?.trim() || null,
    language: language ? (canonicalLanguage(language) ?? language) : null,
    model: {
      provider: model.provider ?? null,
      name: model.name?.trim() || defaultModel,
      temperature: model.temperature ?? null,
      maxTokens: model.maxTokens ?? null,
    },
  };
}

/** How the model is told the conversation's language: its English name and its tag. */
function languageLine(given: string): string {
  const tag = canonicalLanguage(given) ?? given;
  let name: string | undefined;
  try {
    name = new Intl.DisplayNames(['en'], { type: 'language' }).of(tag);
  } catch {
    name = undefined;
  }
  return `Speak ${name && name !== tag ? `${name} (${tag})` : tag}: answer in that language.`;
}

const list = (items: string[] | undefined) => (items?.length ? items.join(', ') : undefined);

/** The system prompt: who the agent is (from the persona) and what it knows about the caller. */
export function systemPrompt(
  manifest: PersonaManifest,
  userId: string,
  activities: { type: string; payload: unknown; occurredAt: string }[],
): string {
  const { identity = {}, personality = {}, knowledge = {} } = manifest;
  const lines = [
    `You are ${identity.name ?? 'a voice assistant'}${identity.tagline ? `, ${identity.tagline}` : ''}.`,
    identity.description,
    `You are speaking with a caller on the phone: answer briefly, in plain spoken sentences (no lists, no markdown).`,
  ];
  const dials = (['warmth', 'humor_level', 'directness', 'formality'] as const)
    .filter((d) => personality[d] !== undefined)
    .map((d) => `${d.replace('_level', '')} ${personality[d]}`);
  if (dials.length) lines.push(`Personality (0 to 1): ${dials.join(', ')}.`);
  const traits = list(personality.traits);
  if (traits) lines.push(`Traits: ${traits}.`);
  const domains = list(knowledge.domains);
  if (domains) lines.push(`Domains: ${domains}.`);
  const expertise = list(knowledge.expertise_tags);
  if (expertise) lines.push(`Expertise: ${expertise}.`);
  const outOfScope = list(knowledge.out_of_scope_topics);
  if (outOfScope) lines.push(`Never discuss: ${outOfScope}. Politely decline those topics.`);
  const { instructions, language } = manifest.conversation ?? {};
  if (instructions?.trim()) lines.push(`Instructions:\n${instructions.trim()}`);
  if (language) lines.push(languageLine(language));
  lines.push('Use the tools when they can answer the caller; never invent their results.');
  if (activities.length) {
    lines.push(`Recent activity of this caller (user ${userId}), newest first:`);
    for (const a of activities) {
      const payload = JSON.stringify(a.payload);
      lines.push(
        `- ${a.occurredAt} ${a.type} ${payload.length > 300 ? `${payload.slice(0, 297)}...` : payload}`,
      );
    }
  }
  return lines.filter(Boolean).join('\n');
}
