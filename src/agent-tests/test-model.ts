/**
 * The model's two roles in agent tests (docs/personas.md "Testing an agent"): the simulated caller,
 * who speaks toward a goal, and the judge, who grades a transcript against a rubric. Both are one
 * chat completion at temperature 0; provider failures throw (the activity retries them), a judge's
 * answer off its schema is a failed grade with the reason, never a retry.
 */
import { z } from 'zod';
import type { Config } from '../config/env';
import { type ChatMessage, completeChatInActivity } from '../outbound/chat-completion';
import type { JudgeGrade, TranscriptTurn } from './agent-test-types';

/** What the simulated caller says to end the call (its goal is met or cannot be). */
export const CALLER_DONE = '[END]';
/** The transcript given to the judge: its most recent characters. */
const JUDGE_TRANSCRIPT_CHARS = 48_000;

/** The judge's answer: validated against this schema. */
export const JudgeAnswer = z.strictObject({ passed: z.boolean(), reason: z.string().min(1).max(2_000) });

/**
 * The simulated caller's next words, or null when it ends the call. The model plays the caller: the
 * agent's words are its "user" messages and its own earlier words its "assistant" messages.
 */
export async function simulatedCallerSays(
  config: Config,
  input: { goal: string; greeting: string; transcript: TranscriptTurn[] },
): Promise<string | null> {
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content: `You are a caller on a phone call with a voice agent. Your goal: ${input.goal}\nSay only your next words to the agent, briefly, as a caller would. When your goal is met, or cannot be met, answer exactly ${CALLER_DONE}.`,
    },
    { role: 'user', content: input.greeting },
  ];
  for (const turn of input.transcript) {
    messages.push({ role: 'assistant', content: turn.text }, { role: 'user', content: turn.reply });
  }
  const said = (await completeChatInActivity(config.llm, messages, { json: false })).trim();
  return said === '' || said.includes(CALLER_DONE) ? null : said.slice(0, 2_000);
}

/** The transcript as the judge reads it, with each turn's tool calls. */
export function judgeTranscriptText(greeting: string, transcript: TranscriptTurn[]): string {
  const lines = [`Agent: ${greeting}`];
  for (const t of transcript) {
    lines.push(`Caller: ${t.text}`);
    for (const c of t.toolCalls) lines.push(`[tool ${c.name}(${JSON.stringify(c.arguments)})]`);
    lines.push(`Agent: ${t.reply}`);
  }
  const text = lines.join('\n');
  return text.length <= JUDGE_TRANSCRIPT_CHARS ? text : `[…]\n${text.slice(-JUDGE_TRANSCRIPT_CHARS)}`;
}

/** The judge's grade of the transcript against the rubric. */
export async function judgeTranscript(
  config: Config,
  input: { rubric: string; greeting: string; transcript: TranscriptTurn[] },
): Promise<JudgeGrade> {
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content:
        'You grade a voice agent\'s conversation against a rubric. Answer with a JSON object only: {"passed": true or false, "reason": "one or two sentences"}.',
    },
    {
      role: 'user',
      content: `Rubric: ${input.rubric}\n\nTranscript:\n${judgeTranscriptText(input.greeting, input.transcript)}`,
    },
  ];
  const content = await completeChatInActivity(config.llm, messages, { json: true });
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return { passed: false, reason: `The judge's answer is not JSON: ${content.slice(0, 200)}` };
  }
  const checked = JudgeAnswer.safeParse(parsed);
  if (!checked.success) {
    const problems = checked.error.issues.map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`);
    return { passed: false, reason: `The judge's answer does not match its schema: ${problems.join('; ')}` };
  }
  return checked.data;
}
