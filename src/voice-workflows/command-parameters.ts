import { z } from 'zod';
import { REGEX_PATTERN_LIMIT, regexProblem } from '../common/safe-regex';
import { commandWithoutPlaceholders } from './matching';

/**
 * The parameters a `voice_command` trigger takes from what the caller says (docs/voice-workflows.md
 * "Commands that take parameters"): placeholders in the command (`where is my order {orderId}`),
 * and per parameter a `type`, a `pattern` or a `description` telling how to find its value. The run
 * reads them as `trigger.<name>` (src/voice-workflows/parameter-filling.ts fills them).
 */

/** A parameter's name: what `{name}` and `trigger.<name>` say. */
export const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Anything in braces in a command: a placeholder when its inside is a parameter name. */
const BRACED = /\{([^{}]*)\}/g;
/** Patterns are matched case-insensitively: speech-to-text decides the case, not the caller. */
export const PARAMETER_PATTERN_FLAGS = 'i';
/** The scalar types a parameter may have; a list of strings instead is an enum. */
export const PARAMETER_TYPES = ['string', 'number', 'integer'] as const;

export const CommandParameterSchema = z
  .strictObject({
    name: z
      .string()
      .regex(PARAMETER_NAME, 'must be a letter or _ then up to 63 letters, digits or _')
      .meta({ example: 'orderId' }),
    type: z
      .union([z.enum(PARAMETER_TYPES), z.array(z.string().trim().min(1).max(100)).min(1).max(50)])
      .default('string')
      .meta({ description: '`string` (default), `number`, `integer`, or a list of the values it may take' }),
    pattern: z.string().min(1).max(REGEX_PATTERN_LIMIT).optional().meta({
      description:
        'A regular expression (case-insensitive, linear-time engine): its first match in what was said is the value',
      example: 'A-\\d{4}',
    }),
    description: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .optional()
      .meta({ description: 'What it is, for the model that finds it and for the question that asks for it' }),
    required: z.boolean().default(true).meta({ description: 'Asked for when missing (default true)' }),
  })
  .meta({ id: 'VoiceCommandParameter' });
export type CommandParameter = z.infer<typeof CommandParameterSchema>;

/** The placeholders of a command, in order, and the braces in it that are not placeholders. */
export function placeholdersOf(command: string): { names: string[]; malformed: string[] } {
  const names: string[] = [];
  const malformed: string[] = [];
  for (const m of command.matchAll(BRACED)) {
    if (PARAMETER_NAME.test(m[1])) names.push(m[1]);
    else malformed.push(m[0]);
  }
  return { names, malformed };
}

type ConfigCheck = { command: string; parameters?: CommandParameter[] };

/** Every problem of a command and its parameters, as zod issues on the field at fault. */
function checkCommandConfig(config: ConfigCheck, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: 'custom', path, message });
  const parameters = config.parameters ?? [];
  const { names, malformed } = placeholdersOf(config.command);
  for (const bad of malformed)
    issue(['command'], `${bad} is not a placeholder: write {name}, a parameter's name`);
  if (config.command !== '' && !/[\p{L}\p{N}]/u.test(commandWithoutPlaceholders(config.command)))
    issue(['command'], 'needs at least one word besides its placeholders');
  const declared = new Set(parameters.map((p) => p.name));
  const seen = new Set<string>();
  for (const name of names) {
    if (!declared.has(name)) issue(['command'], `{${name}} is not one of the parameters`);
    else if (seen.has(name)) issue(['command'], `{${name}} appears more than once`);
    seen.add(name);
  }
  const named = new Set<string>();
  parameters.forEach((p, i) => {
    if (named.has(p.name)) issue(['parameters', i, 'name'], `duplicate parameter name "${p.name}"`);
    named.add(p.name);
    const problem = p.pattern === undefined ? null : regexProblem(p.pattern, PARAMETER_PATTERN_FLAGS);
    if (problem) issue(['parameters', i, 'pattern'], problem);
    const findable =
      names.includes(p.name) || p.pattern !== undefined || p.description !== undefined || p.type !== 'string';
    if (!findable)
      issue(
        ['parameters', i],
        `"${p.name}" cannot be found in what the caller says: give it a placeholder in the command, a pattern, a type other than string or a description`,
      );
  });
}

/** A `voice_command` trigger's config: its command and the parameters it takes. */
export const VoiceCommandConfigSchema = z
  .strictObject({
    command: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(500)
      .meta({ example: 'where is my order {orderId}' }),
    parameters: z.array(CommandParameterSchema).max(10).optional().meta({
      description: 'What the command takes from what the caller says; read as trigger.<name> in the graph',
    }),
  })
  .superRefine(checkCommandConfig);

/** The parameters a workflow's trigger declares (none for a manual trigger or a command without any). */
export function commandParametersOf(trigger: { config: Record<string, unknown> }): CommandParameter[] {
  const parameters = trigger.config.parameters;
  return Array.isArray(parameters) ? (parameters as CommandParameter[]) : [];
}
