/** What mini-swe-agent's observation template renders: `<returncode>N</returncode>` and the output. */
export interface ShellResult {
  exitCode: number | null;
  /** The command's output, without the template's tags; the whole text when it has none. */
  output: string;
}

const RETURN_CODE = /<returncode>\s*(-?\d+)\s*<\/returncode>/;
const OUTPUT = /<output>\r?\n?([\s\S]*?)\r?\n?<\/output>/;
// Long outputs are rendered as a head and a tail around a count of elided characters.
const OUTPUT_HEAD = /<output_head>\r?\n?([\s\S]*?)\r?\n?<\/output_head>/;
const OUTPUT_TAIL = /<output_tail>\r?\n?([\s\S]*?)\r?\n?<\/output_tail>/;
const ELIDED = /<elided_chars>\s*([\s\S]*?)\s*<\/elided_chars>/;

export function parseShellResult(text: string): ShellResult {
  const code = RETURN_CODE.exec(text);
  const exitCode = code?.[1] === undefined ? null : Number(code[1]);
  const output = OUTPUT.exec(text);
  if (output !== null) return { exitCode, output: output[1] ?? '' };
  const head = OUTPUT_HEAD.exec(text);
  const tail = OUTPUT_TAIL.exec(text);
  if (head !== null || tail !== null) {
    const elided = ELIDED.exec(text)?.[1] ?? 'output elided';
    return { exitCode, output: `${head?.[1] ?? ''}\n[… ${elided} …]\n${tail?.[1] ?? ''}` };
  }
  if (code !== null) return { exitCode, output: text.replace(RETURN_CODE, '').trim() };
  return { exitCode, output: text };
}
