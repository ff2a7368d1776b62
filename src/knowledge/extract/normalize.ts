/** Whitespace normalisation shared by every extractor and the chunker. Pure. */

/** Horizontal whitespace of any kind (tabs, no-break and typographic spaces), but not line breaks. */
const HORIZONTAL_SPACE = /[^\S\n]+/g;
/**
 * Control and invisible formatting characters that carry no text (zero-width spaces, soft hyphens, byte
 * order marks…), except line breaks and the zero-width (non-)joiners some scripts and emoji need.
 */
const INVISIBLE = /(?![\n\u200c\u200d])[\p{Cc}\p{Cf}]/gu;

/**
 * Text with its whitespace made regular: Unicode NFC, `\n` line ends, every run of spaces/tabs one space,
 * lines trimmed, at most one blank line between paragraphs, and no leading or trailing whitespace.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\r\n?|[\u2028\u2029\u0085\v\f]/g, '\n')
    .replace(HORIZONTAL_SPACE, ' ')
    .replace(INVISIBLE, '')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
