import fs from 'node:fs';
import path from 'node:path';
import {
  commandDoneReply,
  commandFailedReply,
  commandsMenuReply,
  FALLBACK_REPLY,
  LLM_ROUNDS,
  outOfScopeTopic,
  refusalReply,
  TOOLS_AFTER_LAST_ROUND,
} from '../src/sessions/turn-rules';

const ROOT = path.resolve(__dirname, '..');
const RULES = 'src/sessions/turn-rules.ts';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

const code = Object.fromEntries(
  ['src', 'workflows', 'activities']
    .flatMap(sourceFiles)
    .map((f) => [f, fs.readFileSync(path.join(ROOT, f), 'utf8')]),
);

/** Files besides the rules module whose code holds `text`. */
const definedElsewhere = (text: string) =>
  Object.keys(code).filter((f) => f !== RULES && code[f].includes(text));

describe('the rules of a voice turn, defined once (src/sessions/turn-rules.ts)', () => {
  it('no other file defines a reply string or the round limit', () => {
    const replies = [
      FALLBACK_REPLY,
      refusalReply('X').split('X')[0],
      commandFailedReply('X').split('X')[0],
      commandDoneReply('X', []).split('X')[0],
      commandsMenuReply(['X']).split('"X"')[0],
      commandsMenuReply([]),
      TOOLS_AFTER_LAST_ROUND.split(String(LLM_ROUNDS))[0],
    ];
    for (const text of replies) expect({ text, files: definedElsewhere(text) }).toEqual({ text, files: [] });
    const roundLimits = Object.keys(code).filter((f) => f !== RULES && /\bLLM_ROUNDS\s*=/.test(code[f]));
    expect(roundLimits).toEqual([]);
  });

  it('the turn engine takes them from the rules module', () => {
    const importsRules = (file: string) => /from '\.\.\/turn-rules'/.test(code[file]);
    expect(importsRules('src/sessions/turn/answer-turn.ts')).toBe(true);
  });

  it('states the rules', () => {
    expect(LLM_ROUNDS).toBe(3);
    expect(outOfScopeTopic('Can you give me legal advice?', ['legal advice', 'medical'])).toBe(
      'legal advice',
    );
    expect(outOfScopeTopic('advice on shipping', ['legal advice'])).toBeUndefined();
    expect(commandDoneReply('Reset', [])).toBe('Done: Reset.');
    expect(commandDoneReply('Reset', ['Sent.', 'Bye.'])).toBe('Sent. Bye.');
    expect(commandsMenuReply(['a', 'b'])).toContain('"a", "b"');
  });
});
