/** A failure the user can act on: printed as one line, without a stack, and the command exits 1. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/** A command's flag for each API field it fills; '' for a positional argument. */
export type FieldFlags = Readonly<Record<string, string>>;

/**
 * A service's refusal in the command's words. Services name the API's field (`runId: no curriculum
 * run 99`), where the user typed a flag (`--run`) or an argument (walk 43). A field the command
 * does not fill stays as it is.
 */
export function inCliWords(message: string, fields: FieldFlags): string {
  const named = /^([A-Za-z]\w*)((?:\.\w+)*): ([\s\S]*)$/.exec(message);
  if (named === null) return message;
  const [, field = '', subpath = '', reason = ''] = named;
  // Own keys only: a field named `constructor` must not find Object's.
  const flag = Object.hasOwn(fields, field) ? fields[field] : undefined;
  if (flag === undefined) return message;
  return flag === '' && subpath === '' ? reason : `${flag || field}${subpath}: ${reason}`;
}
