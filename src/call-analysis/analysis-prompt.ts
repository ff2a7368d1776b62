import { z } from 'zod';
import { MatchBudgetSpent, withMatchBudget } from '../common/safe-regex';
import { type AnalysisSetting, dataSchemaValidator, schemaErrorLines } from '../personas';

/** The transcript's most recent characters given to the model (a long call keeps its end). */
export const TRANSCRIPT_MAX_CHARS = 48_000;
/** The most of `data` kept, as JSON. */
export const DATA_MAX_BYTES = 16 * 1024;

/** A turn as the analysis reads it: what the caller said and what of the reply they heard. */
export interface TranscriptTurn {
  text: string;
  heard: string;
}

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/** What an analysis stores (each part null when the setting does not ask for it). */
export interface AnalysisResult {
  summary: string | null;
  success: { passed: boolean; reason: string } | null;
  data: Record<string, unknown> | null;
}

/** The model's first answer and why it was refused: given back to it on the second try. */
export interface RefusedAnswer {
  answer: string;
  problems: string[];
}

/** The transcript as lines, at most TRANSCRIPT_MAX_CHARS (the start is cut when longer). */
export function transcriptText(turns: TranscriptTurn[]): string {
  const text = turns.map((t) => `Caller: ${t.text}\nAgent: ${t.heard}`).join('\n');
  return text.length <= TRANSCRIPT_MAX_CHARS ? text : `[…]\n${text.slice(-TRANSCRIPT_MAX_CHARS)}`;
}

/** What the answer must hold, one line per part the setting asks for. */
function answerShape(setting: AnalysisSetting): string[] {
  const parts: string[] = [];
  if (setting.summary) parts.push('- "summary": a summary of the call in at most three sentences (a string)');
  if (setting.successCriteria !== undefined)
    parts.push(
      `- "success": {"passed": true or false, "reason": one sentence}: whether the call met these success criteria:\n${setting.successCriteria}`,
    );
  if (setting.dataSchema !== undefined)
    parts.push(
      `- "data": an object of what the call said, valid against this JSON Schema (leave out a field the call did not tell, unless the schema requires it):\n${JSON.stringify(setting.dataSchema)}`,
    );
  return parts;
}

/**
 * The chat messages of an analysis: the task and the answer's shape (system), the transcript (user)
 * and, on the second try, the refused answer with its problems.
 */
export function analysisMessages(
  setting: AnalysisSetting,
  turns: TranscriptTurn[],
  refused?: RefusedAnswer,
): ChatMessage[] {
  const system = [
    'You analyse a finished phone call between a caller and a voice agent.',
    'Answer with one JSON object and nothing else, with exactly these fields:',
    ...answerShape(setting),
  ].join('\n');
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    {
      role: 'user',
      content: `The call's transcript:\n${transcriptText(turns) || '(the caller said nothing)'}`,
    },
  ];
  if (refused) {
    messages.push(
      { role: 'assistant', content: refused.answer },
      {
        role: 'user',
        content: `That answer is not valid:\n${refused.problems.map((p) => `- ${p}`).join('\n')}\nAnswer again with the corrected JSON object only.`,
      },
    );
  }
  return messages;
}

const Answer = z.object({
  summary: z.string().trim().min(1).max(4000).optional(),
  success: z.strictObject({ passed: z.boolean(), reason: z.string().trim().min(1).max(1000) }).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

/** The JSON of an answer, without the Markdown fence some models put around it. */
function parseJson(content: string): unknown {
  const fenced = content.trim().match(/^```(?:json)?\s*([\s\S]*?)\s*```$/i);
  return JSON.parse(fenced ? fenced[1] : content);
}

/**
 * `data` against the persona's JSON Schema, its patterns within one matching budget
 * (src/common/safe-regex.ts). A schema saved before its patterns had to suit the linear-time engine
 * (a lookahead, say) no longer compiles: that is a problem of the answer's data, named, not an
 * exception that would retry the activity for ever.
 */
function dataProblems(schema: Record<string, unknown>, data: unknown): string[] {
  let validate: ReturnType<typeof dataSchemaValidator>;
  try {
    validate = dataSchemaValidator(schema);
  } catch (error) {
    return [
      `data: the persona's data schema cannot be checked: ${error instanceof Error ? error.message : String(error)}`,
    ];
  }
  try {
    return withMatchBudget(() => validate(data)) ? [] : schemaErrorLines(validate.errors, 'data');
  } catch (error) {
    if (error instanceof MatchBudgetSpent) return [`data: ${error.message}`];
    throw error;
  }
}

/**
 * Checks a model's answer against what the setting asks: JSON, the parts asked for with the right
 * shapes (zod), and `data` against the persona's JSON Schema (ajv). Answers the result or every problem.
 */
export function checkAnswer(
  setting: AnalysisSetting,
  content: string,
): { ok: true; result: AnalysisResult } | { ok: false; problems: string[] } {
  let json: unknown;
  try {
    json = parseJson(content);
  } catch {
    return { ok: false, problems: ['the answer is not a JSON object'] };
  }
  const parsed = Answer.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      problems: parsed.error.issues.map((i) => `${i.path.join('.') || '/'}: ${i.message}`),
    };
  const a = parsed.data;
  const problems: string[] = [];
  if (setting.summary && a.summary === undefined) problems.push('summary: is required');
  if (setting.successCriteria !== undefined && a.success === undefined) problems.push('success: is required');
  if (setting.dataSchema !== undefined) {
    if (a.data === undefined) problems.push('data: is required');
    else if (Buffer.byteLength(JSON.stringify(a.data)) > DATA_MAX_BYTES)
      problems.push(`data: must be at most ${DATA_MAX_BYTES} bytes as JSON`);
    else problems.push(...dataProblems(setting.dataSchema, a.data));
  }
  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    result: {
      summary: setting.summary ? (a.summary ?? null) : null,
      success: setting.successCriteria !== undefined ? (a.success ?? null) : null,
      data: setting.dataSchema !== undefined ? (a.data ?? null) : null,
    },
  };
}
