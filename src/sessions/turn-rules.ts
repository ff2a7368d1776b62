/**
 * Every rule of a voice turn that more than one place applies, defined once (docs/sessions.md "How the
 * agent answers"): what the agent says in each case and how many model rounds a turn may take. Pure
 * (no I/O, deterministic): the turn engine imports it, and workflow code may (it is on the allow-list).
 */
import { normalizeUtterance } from '../voice-workflows/matching';

/** At most this many chat completions per turn (tool results go back to the model in between). */
export const LLM_ROUNDS = 3;

/** Spoken when the model fails (timeout, 5xx, malformed answer) or a turn cannot finish: the session goes on. */
export const FALLBACK_REPLY =
  "Sorry, I'm having trouble answering right now. Could you say that again in a moment?";

/** The error recorded when the model still asks for tools in its last round. */
export const TOOLS_AFTER_LAST_ROUND = `The model still wanted tools after ${LLM_ROUNDS} rounds`;

/** An out-of-scope topic of the persona named in the utterance (every word of the topic present). */
export function outOfScopeTopic(text: string, topics: string[] | undefined): string | undefined {
  const words = new Set(normalizeUtterance(text));
  return topics?.find((topic) => {
    const topicWords = normalizeUtterance(topic);
    return topicWords.length > 0 && topicWords.every((w) => words.has(w));
  });
}

/** The polite refusal for an out-of-scope topic (no model, no tool). */
export const refusalReply = (topic: string) =>
  `I'm sorry, I can't help with ${topic}. Is there something else I can do for you?`;

/** With no model configured: the voice commands the agent knows, or that it knows none. */
export const commandsMenuReply = (commands: string[]) =>
  commands.length
    ? `I can help with these requests: ${commands.map((c) => `"${c}"`).join(', ')}. What would you like to do?`
    : "I don't have any voice commands set up yet, so I can't help with that.";

/** A voice command's reply: what its `speak` steps said, else that it is done. */
export const commandDoneReply = (workflowName: string, speech: string[]) =>
  speech.join(' ') || `Done: ${workflowName}.`;

/** A voice command that failed. */
export const commandFailedReply = (workflowName: string) =>
  `Sorry, I couldn't finish "${workflowName}" this time.`;

/** The error recorded for a voice command that failed (`failure` says where and why). */
export const commandFailedError = (workflowName: string, failure: string) =>
  `Workflow ${workflowName} failed: ${failure}`;

/** The error recorded for a turn whose step kept failing (the worker or the database, not an answer). */
export const unfinishedTurnError = (cause: string | undefined) =>
  `The turn could not finish: ${cause ?? 'unknown error'}`;

/** How a parameter is named to the caller: its description, else its name in words ("orderId" → "the order id"). */
export const parameterLabel = (p: { name: string; description?: string }) =>
  p.description ??
  `the ${p.name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_+/g, ' ')
    .toLowerCase()
    .trim()}`;

/** The question for a voice command's missing parameters (the caller's next turn answers it). */
export function parameterQuestion(workflowName: string, missing: { name: string; description?: string }[]) {
  const labels = missing.map(parameterLabel);
  const list = labels.length > 1 ? `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}` : labels[0];
  return `To do "${workflowName}" I need ${list}. What ${labels.length > 1 ? 'are they' : 'is it'}?`;
}

/** What the model is told when a voice command failed: it answers the caller in its place. */
export const commandFailedContext = (workflowName: string, command: string, failure: string) =>
  `The caller's words matched the voice command "${command}" (workflow "${workflowName}"), which ran and failed: ${failure}. ` +
  'Answer the caller yourself: say briefly that this did not work, and help another way if you can.';
