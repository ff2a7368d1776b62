import Papa from 'papaparse';

/** A contact as POST /campaigns takes it. */
export interface CampaignContact {
  to: string;
  variables?: Record<string, string>;
}

/** What a CSV file gave: its contacts, and what is wrong with it (the campaign cannot start until none). */
export interface ParsedContacts {
  contacts: CampaignContact[];
  problems: string[];
}

export const MAX_CONTACTS = 10_000;
const E164 = /^\+[1-9]\d{6,14}$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** At most this many problems are listed: the rest are counted. */
const LISTED_PROBLEMS = 5;

/**
 * A contacts CSV read with Papa Parse (the maintained CSV parser: quotes, commas in fields, line
 * ends of any kind): a header row with a `to` column (E.164 numbers) and, beside it, any columns
 * whose names become the contact's `{{variables}}`. Each row is checked as the API checks it, so a
 * problem shows before anything is sent.
 */
export function parseContactsCsv(text: string): ParsedContacts {
  const parsed = Papa.parse<Record<string, string>>(text.trim(), {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: (h) => h.trim(),
  });
  const problems: string[] = parsed.errors.map((e) => `row ${(e.row ?? 0) + 2}: ${e.message}`);
  const columns = parsed.meta.fields ?? [];
  if (!columns.includes('to')) return { contacts: [], problems: ['the header row has no "to" column'] };
  const names = columns.filter((c) => c !== 'to');
  for (const name of names)
    if (!VARIABLE.test(name)) problems.push(`column "${name}" is not a variable name (letters, digits, _)`);
  const contacts = parsed.data.map((row, i) => {
    const to = (row.to ?? '').trim();
    if (!E164.test(to)) problems.push(`row ${i + 2}: "${to}" is not an E.164 number (+14155552671)`);
    const variables = Object.fromEntries(names.map((n) => [n, (row[n] ?? '').trim()]));
    return names.length ? { to, variables } : { to };
  });
  if (contacts.length === 0) problems.push('no contacts: a row under the header for each');
  if (contacts.length > MAX_CONTACTS) problems.push(`${contacts.length} contacts: at most ${MAX_CONTACTS}`);
  const listed = problems.slice(0, LISTED_PROBLEMS);
  if (problems.length > LISTED_PROBLEMS) listed.push(`and ${problems.length - LISTED_PROBLEMS} more`);
  return { contacts, problems: listed };
}
