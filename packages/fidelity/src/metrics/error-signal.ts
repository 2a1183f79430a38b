/**
 * Whether an observation reports a failure. Cues seen in the real data: tau-bench "Error: …", SQL
 * "Error executing query: …", shell "command not found" / "No such file or directory", Python
 * tracebacks, "exit code 2", JSON bodies with an "error" member.
 */
const ERROR_CUES: readonly RegExp[] = [
  /^\s*(?:error|fatal|exception)\b/i,
  /^\s*\w*(?:Error|Exception)\b(?::|$)/m,
  /\bTraceback \(most recent call last\)/,
  /\bcommand not found\b/,
  /\bNo such file or directory\b/,
  /\bPermission denied\b/,
  /\b(?:exit|return)(?:ed)? (?:code|status)[: ]+[1-9]\d*/i,
  /\bnon-zero exit\b/i,
  /\bsyntax error\b/i,
  /\b(?:Unknown column|no such (?:table|column)|doesn't exist|SQL syntax)\b/i,
  /^\s*\{\s*"(?:error|errors)"\s*:/,
  /\bSegmentation fault\b/,
  /^\s*(?:bash|sh|zsh): .*: /m,
];

export function looksLikeError(text: string): boolean {
  // Cues near the start decide; a long output that quotes "error" deep inside is not a failure.
  const head = text.length > 2000 ? text.slice(0, 2000) : text;
  return ERROR_CUES.some((cue) => cue.test(head));
}
