/**
 * A small staff handbook and a fixed set of 40 questions over it (issue 43: "the right chunk is in the
 * top 3 for at least 36"). Shared by the full-text test (test/knowledge-search.test.ts) and the hybrid
 * retrieval test, so both measure against the same questions.
 */

/** A small staff handbook: 30 short sections, each a heading and a few sentences. */
export const HANDBOOK: [heading: string, text: string][] = [
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

/** The handbook as one Markdown document: a `## heading` per section, so each section is one chunk. */
export function handbookMarkdown(): string {
  return HANDBOOK.map(([heading, body]) => `## ${heading}\n\n${body}`).join('\n\n');
}

/**
 * 40 questions as a caller might put them (not the handbook's wording), each with the heading of the
 * section that answers it.
 */
export const HANDBOOK_QUESTIONS: [question: string, heading: string][] = [
  ['What time do you open on Sunday?', 'Opening hours'],
  ['When does the shop close on Saturday?', 'Opening hours'],
  ['Can I bring back shoes I have not worn?', 'Returns'],
  ['Can I return a sale item?', 'Returns'],
  ['How long until my refund shows on my card?', 'Refunds'],
  ['Do gift cards expire?', 'Gift cards'],
  ['How fast is express delivery?', 'Delivery times'],
  ['How many days does standard delivery take?', 'Delivery times'],
  ['Is shipping free?', 'Delivery charges'],
  ['Do you ship to Norway?', 'International shipping'],
  ['Who pays the customs fees?', 'International shipping'],
  ['My parcel arrived damaged, what should I do?', 'Damaged parcels'],
  ['Can I pay with PayPal?', 'Payment methods'],
  ['Do you take cash on delivery?', 'Payment methods'],
  ['How many points do I earn per euro?', 'Loyalty programme'],
  ['Is there a discount for students?', 'Student discount'],
  ['Will you match a lower price?', 'Price matching'],
  ['Is accidental damage covered by the warranty?', 'Warranty'],
  ['How long does a repair take?', 'Repairs'],
  ['What should employees wear?', 'Staff uniform'],
  ['How long is the lunch break?', 'Breaks'],
  ['How many days of annual leave do I get?', 'Holidays'],
  ['How early must I request my holiday?', 'Holidays'],
  ['When do I need a doctor note?', 'Sick leave'],
  ['When are salaries paid?', 'Payroll'],
  ['Where is the assembly point in a fire?', 'Fire safety'],
  ['Where is the first aid kit?', 'First aid'],
  ['I left my umbrella in the shop', 'Lost property'],
  ['Is parking free?', 'Parking'],
  ['Is there wheelchair access?', 'Accessibility'],
  ['Is there a lift?', 'Accessibility'],
  ['Can I bring my dog?', 'Pets'],
  ['When can I pick up my click and collect order?', 'Click and collect'],
  ['Can I cancel my order?', 'Order cancellation'],
  ['Do you sell my data?', 'Privacy'],
  ['Where is customer data stored?', 'Privacy'],
  ['How quickly are complaints answered?', 'Complaints'],
  ['What is the wifi password?', 'Wi-Fi'],
  ['Is there free wifi in the café?', 'Wi-Fi'],
  ['What happens to things customers leave behind?', 'Lost property'],
];
