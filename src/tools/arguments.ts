import type { ToolParameters } from './tools.schemas';

const matches: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  array: (v) => Array.isArray(v),
};

/** Problems of `args` against a tool's `parameters`, each naming the argument ("arguments.x: …"). */
export function argumentProblems(parameters: ToolParameters, args: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const properties = parameters.properties ?? {};
  for (const name of parameters.required ?? []) {
    if (args[name] === undefined || args[name] === null) problems.push(`arguments.${name}: is required`);
  }
  for (const [name, value] of Object.entries(args)) {
    const spec = properties[name];
    if (!spec) {
      problems.push(`arguments.${name}: unknown parameter`);
      continue;
    }
    if (value === undefined || value === null) continue;
    if (!matches[spec.type](value)) problems.push(`arguments.${name}: expected ${spec.type}`);
    else if (spec.enum && !spec.enum.includes(value as string)) {
      problems.push(`arguments.${name}: must be one of ${spec.enum.join(', ')}`);
    }
  }
  return problems;
}
