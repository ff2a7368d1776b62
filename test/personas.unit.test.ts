import { PERSONA_RULES, PersonaManifestSchema, validatePersonaManifest } from '../src/personas/manifest';
import { addBusinessDays, reviewDueBy } from '../src/reviews/due';
import { systemPrompt } from '../src/sessions/persona-prompt';

const ctx = {
  slugTaken: (slug: string) => slug === 'taken',
  findVoice: (id: string) => (id === 'v1' ? { provider: 'espeak-ng' } : undefined),
};
const complete = () => ({
  identity: {
    id: 'ava',
    name: 'Ava',
    description: 'A support agent for a shop, patient and precise with orders.',
  },
  voice: { provider: 'espeak-ng', voice_id: 'v1' },
  personality: { warmth: 0, humor_level: 1, directness: 0.5, formality: 0.5, traits: ['calm'] },
  knowledge: { category: 'other', out_of_scope_topics: ['politics'] },
  behaviors: { greetings: ['Hello!'], backchannels: ['mm'], thinking_sounds: ['hmm'] },
});

describe('persona validation rules', () => {
  it('a complete manifest is valid with no warnings; bounds are inclusive', () => {
    expect(validatePersonaManifest(complete(), ctx)).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('an empty manifest names every required field', () => {
    const { valid, errors } = validatePersonaManifest({}, ctx);
    expect(valid).toBe(false);
    expect(errors.map((e) => e.split(':')[0])).toEqual([
      'identity.id',
      'identity.name',
      'identity.description',
      'voice.voice_id',
      'voice.provider',
      'personality.warmth',
      'personality.humor_level',
      'personality.directness',
      'personality.formality',
      'personality.traits',
      'knowledge.category',
      'behaviors.greetings',
    ]);
  });

  it.each([
    ['identity.id', { identity: { ...complete().identity, id: 'ab' } }],
    ['identity.id', { identity: { ...complete().identity, id: 'a--b' } }],
    ['identity.id', { identity: { ...complete().identity, id: 'x'.repeat(65) } }],
    ['identity.id', { identity: { ...complete().identity, id: 'taken' } }],
    ['identity.name', { identity: { ...complete().identity, name: 'n'.repeat(81) } }],
    [
      'identity.aliases',
      { identity: { ...complete().identity, aliases: Array.from({ length: 11 }, (_, i) => `a${i}`) } },
    ],
    ['identity.description', { identity: { ...complete().identity, description: 'd'.repeat(2001) } }],
    ['personality.traits', { personality: { ...complete().personality, traits: Array(11).fill('t') } }],
    ['personality.directness', { personality: { ...complete().personality, directness: Number.NaN } }],
  ])('refuses %s out of bounds', (field, patch) => {
    const result = validatePersonaManifest({ ...complete(), ...patch }, ctx);
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.split(':')[0])).toEqual([field]);
  });

  it('warns (never blocks) on thin descriptions, long greetings and missing behaviours', () => {
    const m = complete();
    const result = validatePersonaManifest(
      {
        ...m,
        identity: { ...m.identity, description: 'A helpful shop assistant.' },
        knowledge: { category: 'sales' },
        behaviors: { greetings: ['g'.repeat(121)] },
      },
      ctx,
    );
    expect(result.valid).toBe(true);
    expect(result.warnings.map((w) => w.split(':')[0])).toEqual([
      'identity.description',
      'knowledge.out_of_scope_topics',
      'behaviors.greetings[0]',
      'behaviors.backchannels',
      'behaviors.thinking_sounds',
    ]);
  });

  it('the published rule list covers every field the validator checks', () => {
    const fields = PERSONA_RULES.errors.map((r) => r.split(':')[0].split(',')[0]);
    for (const f of [
      'identity.id',
      'identity.name',
      'voice.voice_id',
      'knowledge.category',
      'behaviors.greetings',
    ])
      expect(fields).toContain(f);
  });
});

describe('the manifest’s telephony section', () => {
  const parse = (telephony: unknown) => PersonaManifestSchema.safeParse({ telephony });
  it('takes the keypad, the voicemail message and the transfer destinations', () => {
    const telephony = {
      keypad: { terminator: null, timeoutMs: 3000 },
      voicemailMessage: 'Hi {{name}}, this is Ava from Homegoods. Call us back on 555-0100.',
      transferDestinations: [
        { destination: '+14155550100', name: 'Billing', description: 'Questions about an invoice' },
        { destination: 'sip:desk@pbx.example.com', name: 'Front desk', description: 'Anything else' },
      ],
    };
    expect(parse(telephony)).toMatchObject({ success: true, data: { telephony } });
  });

  it('refuses a destination that is no number or SIP URI, a terminator that is no key, a pause out of bounds, naming the field', () => {
    const paths = (telephony: unknown) =>
      (parse(telephony).error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(
      paths({ transferDestinations: [{ destination: '555-0100', name: 'x', description: '' }] }),
    ).toEqual([
      expect.stringMatching(
        /^telephony\.transferDestinations\.0\.destination: must be a number in E\.164 form/,
      ),
    ]);
    expect(paths({ keypad: { terminator: '1' } })[0]).toMatch(/^telephony\.keypad\.terminator: /);
    expect(paths({ keypad: { timeoutMs: 100 } })[0]).toMatch(/^telephony\.keypad\.timeoutMs: /);
    expect(paths({ keypad: { pause: 1 } })[0]).toMatch(/^telephony\.keypad: .*pause/);
  });
});

describe('review due dates', () => {
  const at = (s: string) => new Date(s);
  it('counts Monday to Friday in UTC', () => {
    expect(addBusinessDays(at('2026-11-23T10:00:00Z'), 5).toISOString()).toBe('2026-11-30T10:00:00.000Z'); // Mon → Mon
    expect(addBusinessDays(at('2026-11-26T10:00:00Z'), 5).toISOString()).toBe('2026-12-03T10:00:00.000Z'); // Thu → Thu
    expect(addBusinessDays(at('2026-11-27T23:30:00Z'), 1).toISOString()).toBe('2026-11-30T23:30:00.000Z'); // Fri → Mon
  });
  it('a weekend submission counts from Monday 00:00 UTC', () => {
    expect(addBusinessDays(at('2026-11-28T15:00:00Z'), 5).toISOString()).toBe('2026-12-07T00:00:00.000Z'); // Sat
    expect(addBusinessDays(at('2026-11-29T15:00:00Z'), 1).toISOString()).toBe('2026-12-01T00:00:00.000Z'); // Sun
  });
  it('REVIEW_SLA_SECONDS replaces business days', () => {
    const from = at('2026-11-28T15:00:00Z');
    expect(reviewDueBy({ reviews: { slaBusinessDays: 5, slaSeconds: 3 } }, from).getTime()).toBe(
      from.getTime() + 3000,
    );
    expect(reviewDueBy({ reviews: { slaBusinessDays: 2 } }, from).toISOString()).toBe(
      '2026-12-02T00:00:00.000Z',
    );
  });
});

describe('the conversation group', () => {
  const voiced = {
    ...ctx,
    findVoice: (id: string) => (id === 'v1' ? { provider: 'espeak-ng', language: 'en-US' } : undefined),
  };
  const withConversation = (conversation: Record<string, unknown>) =>
    validatePersonaManifest({ ...complete(), conversation }, voiced);

  it('instructions, a language of the voice and a model are valid; every field is optional', () => {
    expect(withConversation({})).toEqual({ valid: true, errors: [], warnings: [] });
    expect(
      withConversation({
        instructions: 'i'.repeat(8000),
        language: 'en-GB',
        model: { name: 'gpt-4o-mini', temperature: 2, maxTokens: 16_384 },
      }),
    ).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it.each([
    ['conversation.instructions', { instructions: 'i'.repeat(8001) }],
    ['conversation.language', { language: 'not a tag!' }],
    ['conversation.model.name', { model: { name: '  ' } }],
    ['conversation.model.temperature', { model: { temperature: 2.1 } }],
    ['conversation.model.temperature', { model: { temperature: -0.1 } }],
    ['conversation.model.maxTokens', { model: { maxTokens: 0 } }],
    ['conversation.model.maxTokens', { model: { maxTokens: 16_385 } }],
  ])('refuses %s out of bounds', (field, conversation) => {
    const result = withConversation(conversation);
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.split(':')[0])).toEqual([field]);
  });

  it("warns when the conversation's language is not the voice's", () => {
    expect(withConversation({ language: 'de' }).warnings).toEqual([
      "conversation.language: de is not the language of the persona's voice (en-US)",
    ]);
  });

  it('lists its rules', () => {
    expect(PERSONA_RULES.errors.filter((r) => r.startsWith('conversation.'))).toHaveLength(6);
  });
});

describe('the system prompt', () => {
  it("places the agent's instructions after its identity and before the caller's activities, with its language", () => {
    const manifest = {
      ...complete(),
      conversation: { instructions: 'Confirm every order number.', language: 'pt-br' },
    };
    const prompt = systemPrompt(manifest, 'u1', [
      { type: 'order.placed', payload: { id: 'A-1' }, occurredAt: '2026-11-26T00:00:00.000Z' },
    ]);
    const at = (text: string) => prompt.indexOf(text);
    expect(at(manifest.identity.description)).toBeGreaterThanOrEqual(0);
    expect(at(manifest.identity.description)).toBeLessThan(at('Confirm every order number.'));
    expect(at('Confirm every order number.')).toBeLessThan(at('order.placed'));
    expect(prompt).toContain('Speak Brazilian Portuguese (pt-BR): answer in that language.');
    expect(systemPrompt(complete(), 'u1', [])).not.toContain('Instructions:');
  });
});
