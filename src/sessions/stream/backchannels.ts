import { normalizeUtterance } from '../../voice-workflows';

/** What a listener says to show they are listening; said while the agent speaks, it interrupts nothing. */
export const DEFAULT_BACKCHANNELS = ['uh-huh', 'mm-hmm', 'yeah', 'okay', 'right'];

const key = (text: string) => normalizeUtterance(text.replace(/-/g, ' ')).join(' ');

/** Whether `text` is only a backchannel: the persona's `behaviors.backchannels` or a default one. */
export function isBackchannel(text: string, personaBackchannels: string[] = []): boolean {
  const said = key(text);
  if (!said) return true;
  const known = [...DEFAULT_BACKCHANNELS, ...personaBackchannels].map(key);
  if (known.includes(said)) return true;
  // a few of them in a row ("yeah, okay", "mm-hmm right") is still only listening
  const words = said.split(' ');
  const knownWords = new Set(known.flatMap((k) => k.split(' ')));
  return words.length <= 4 && words.every((w) => knownWords.has(w));
}
