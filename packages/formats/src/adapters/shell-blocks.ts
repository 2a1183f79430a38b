/**
 * Shell commands written in an agent's text, the way text-based agents (mini-swe-agent, SWE-agent
 * style prompts) ask for them: a fenced block tagged `bash`, `sh`, `shell` or `mswea_bash_command`,
 * or an XML-style `<mswea_bash_command>…</mswea_bash_command>` element.
 */
const FENCED = /```(?:bash|sh|shell|mswea_bash_command)[ \t]*\r?\n([\s\S]*?)\r?\n?```/g;
const TAGGED = /<mswea_bash_command>([\s\S]*?)<\/mswea_bash_command>/g;

/** Every shell command in `text`, trimmed, in order of appearance. */
export function shellBlocks(text: string): string[] {
  const found: { at: number; command: string }[] = [];
  for (const match of text.matchAll(FENCED))
    found.push({ at: match.index, command: (match[1] ?? '').trim() });
  for (const match of text.matchAll(TAGGED))
    found.push({ at: match.index, command: (match[1] ?? '').trim() });
  return found.toSorted((a, b) => a.at - b.at).map((entry) => entry.command);
}

/** `text` with its shell blocks removed: the reasoning around a command, without the command. */
export function withoutShellBlocks(text: string): string {
  return text.replace(FENCED, '').replace(TAGGED, '').trim();
}
