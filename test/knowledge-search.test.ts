import { queryParts } from '../src/knowledge/search-query';
import { type KnowledgeRig, startKnowledgeRig } from './support/knowledge';

/** A small staff handbook: 30 short sections, each a heading and a few sentences. */
const HANDBOOK: [heading: string, text: string][] = [
  [
    'Opening hours',
    'The shop opens at 9 am and closes at 6 pm from Monday to Saturday. On Sundays we open at 11 am.',
  ],
  [
    'Returns',
    'Customers may return unworn items within 30 days with the receipt. Sale items can be exchanged but not refunded.',
  ],
  ['Refunds', 'Refunds go back to the original payment card and take up to five business days to appear.'],
  ['Gift cards', 'Gift cards are valid for two years and cannot be exchanged for cash.'],
  [
    'Delivery times',
    'Standard delivery takes three to five working days; express delivery arrives the next day if ordered before 2 pm.',
  ],
  ['Delivery charges', 'Shipping is free on orders over 50 euros; otherwise it costs 4.95 euros.'],
  [
    'International shipping',
    'We ship to every country in the European Union and to Switzerland and Norway. Customs fees are paid by the recipient.',
  ],
  [
    'Damaged parcels',
    'If a parcel arrives damaged, photograph it and contact support within 48 hours so we can send a replacement.',
  ],
  [
    'Payment methods',
    'We accept Visa, Mastercard, PayPal and bank transfer. Cash on delivery is not available.',
  ],
  [
    'Loyalty programme',
    'Members earn one point per euro spent and receive a voucher of 10 euros for every 200 points.',
  ],
  ['Student discount', 'Students with a valid student card receive 15 percent off full-price items.'],
  [
    'Price matching',
    'We match the price of any authorised retailer if the identical product is in stock there.',
  ],
  [
    'Warranty',
    'All electronics carry a two-year manufacturer warranty covering defects but not accidental damage.',
  ],
  ['Repairs', 'Repairs outside warranty are quoted before any work starts and usually take ten days.'],
  [
    'Staff uniform',
    'Employees wear the navy polo shirt with the name badge visible at all times on the shop floor.',
  ],
  [
    'Breaks',
    'Staff working more than six hours take a paid thirty-minute lunch break, agreed with the shift manager.',
  ],
  [
    'Holidays',
    'Full-time employees have 25 days of annual leave; requests must be made four weeks in advance.',
  ],
  [
    'Sick leave',
    'Call your manager before your shift starts if you are ill; a doctor’s note is needed after three days.',
  ],
  ['Payroll', 'Salaries are paid on the last working day of each month by bank transfer.'],
  [
    'Fire safety',
    'In a fire, leave through the nearest emergency exit and gather at the assembly point in the car park.',
  ],
  [
    'First aid',
    'The first aid kit is kept behind the main till; trained first aiders are listed on the staff noticeboard.',
  ],
  [
    'Lost property',
    'Items left in the shop are kept for one month in the office safe before being donated to charity.',
  ],
  ['Parking', 'Customers get two hours of free parking in the underground garage with a validated ticket.'],
  [
    'Accessibility',
    'The shop has step-free access, a lift to every floor and wheelchairs available on request.',
  ],
  ['Pets', 'Assistance dogs are welcome; other pets are not allowed inside the shop.'],
  [
    'Click and collect',
    'Online orders marked click and collect are ready for pickup at the customer desk within four hours.',
  ],
  [
    'Order cancellation',
    'An order can be cancelled free of charge until it has been dispatched from the warehouse.',
  ],
  ['Privacy', 'Customer data is stored in the EU, never sold, and deleted on request within thirty days.'],
  [
    'Complaints',
    'Complaints are answered by the customer care team within two working days and escalated to a manager if unresolved.',
  ],
  ['Wi-Fi', 'Free guest Wi-Fi is available in the café; the password is printed on every receipt.'],
];

/** Questions as a caller might put them (not the handbook's wording), each with the section that answers it. */
const QUESTIONS: [question: string, heading: string][] = [
  ['What time do you open on Sunday?', 'Opening hours'],
  ['Can I bring back shoes I have not worn?', 'Returns'],
  ['How long until my refund shows on my card?', 'Refunds'],
  ['Do gift cards expire?', 'Gift cards'],
  ['How fast is express delivery?', 'Delivery times'],
  ['Is shipping free?', 'Delivery charges'],
  ['Do you ship to Norway?', 'International shipping'],
  ['My parcel arrived damaged, what should I do?', 'Damaged parcels'],
  ['Can I pay with PayPal?', 'Payment methods'],
  ['How many points do I earn per euro?', 'Loyalty programme'],
  ['Is there a discount for students?', 'Student discount'],
  ['Will you match a lower price?', 'Price matching'],
  ['Is accidental damage covered by the warranty?', 'Warranty'],
  ['How long does a repair take?', 'Repairs'],
  ['What should employees wear?', 'Staff uniform'],
  ['How long is the lunch break?', 'Breaks'],
  ['How many days of annual leave do I get?', 'Holidays'],
  ['When do I need a doctor note?', 'Sick leave'],
  ['When are salaries paid?', 'Payroll'],
  ['Where is the assembly point in a fire?', 'Fire safety'],
  ['Where is the first aid kit?', 'First aid'],
  ['I left my umbrella in the shop', 'Lost property'],
  ['Is parking free?', 'Parking'],
  ['Is there wheelchair access?', 'Accessibility'],
  ['Can I bring my dog?', 'Pets'],
  ['When can I pick up my click and collect order?', 'Click and collect'],
  ['Can I cancel my order?', 'Order cancellation'],
  ['Do you sell my data?', 'Privacy'],
  ['How quickly are complaints answered?', 'Complaints'],
  ['What is the wifi password?', 'Wi-Fi'],
  ['"free parking"', 'Parking'],
  ['refun', 'Refunds'],
];

/**
 * Full-text retrieval (issue 43, docs/knowledge.md "Retrieval"): a handbook written here, indexed as a
 * text source, and questions whose answering section must be among the first three hits for at least
 * 90 % of them. Also phrases, prefixes and exclusions.
 */
describe('knowledge search', () => {
  let rig: KnowledgeRig;
  let baseId = '';
  const search = async (q: string, limit = 3) => {
    const res = await rig.api(
      'GET',
      `/knowledge-bases/${baseId}/search?q=${encodeURIComponent(q)}&limit=${limit}`,
    );
    expect(res.status).toBe(200);
    return res.body.data as { heading: string | null; text: string; score: number; sourceName: string }[];
  };
  beforeAll(async () => {
    rig = await startKnowledgeRig();
    baseId = (await rig.api('POST', '/knowledge-bases', { name: 'Handbook' })).body.data.id;
    const text = HANDBOOK.map(([heading, body]) => `## ${heading}\n\n${body}`).join('\n\n');
    const source = await rig.api('POST', `/knowledge-bases/${baseId}/sources`, {
      type: 'text',
      name: 'Staff handbook',
      text,
    });
    const ready = await rig.waitForSource(baseId, source.body.data.id, ['ready', 'failed']);
    expect(ready).toMatchObject({ status: 'ready', chunks: HANDBOOK.length });
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  it('finds the right section in the top 3 for at least 90 % of the questions', async () => {
    const misses: string[] = [];
    for (const [question, heading] of QUESTIONS) {
      const hits = await search(question);
      if (!hits.some((h) => h.heading === heading))
        misses.push(`${question} → ${hits.map((h) => h.heading).join(' | ') || 'nothing'}`);
    }
    const found = QUESTIONS.length - misses.length;
    if (found / QUESTIONS.length < 0.9)
      throw new Error(`found ${found}/${QUESTIONS.length}; missed:\n${misses.join('\n')}`);
  });

  it('answers hits with the source name, heading, text and a score, best first', async () => {
    const [best, ...rest] = await search('gift cards cash', 5);
    expect(best).toMatchObject({ sourceName: 'Staff handbook', heading: 'Gift cards' });
    expect(best.text).toContain('cannot be exchanged for cash');
    for (const hit of rest) expect(hit.score).toBeLessThanOrEqual(best.score);
  });

  it('matches phrases in quotes, prefixes of words, and leaves out -excluded words', async () => {
    expect((await search('"annual leave"', 10)).map((h) => h.heading)).toEqual(['Holidays']);
    expect((await search('"leave annual"', 10)).map((h) => h.heading)).toEqual([]);
    expect((await search('warrant', 1))[0].heading).toBe('Warranty');
    const excluded = (await search('free -parking', 30)).map((h) => h.heading);
    expect(excluded).toContain('Wi-Fi');
    expect(excluded).not.toContain('Parking');
    expect(await search('zzqx')).toEqual([]);
  });

  it('refuses an empty or over-long query naming q', async () => {
    for (const q of ['', 'x'.repeat(501)]) {
      const res = await rig.api('GET', `/knowledge-bases/${baseId}/search?q=${q}`);
      expect(res.status).toBe(400);
      expect(res.body.validationErrors.join('\n')).toMatch(/^q: /m);
    }
  });

  it('splits a query into its phrases and exclusions, and its plain words', () => {
    expect(queryParts('"free parking" -dogs Open-hours now')).toEqual({
      required: '"free parking" -dogs',
      words: ['open', 'hours', 'now'],
    });
  });
});
