/**
 * Names for a trajectory list, so rows tell apart at a glance: the file-like id without its folders
 * (SWE-agent ids are paths whose last part names the instance), and the first line of the task that
 * says something (recorded tasks often open with template headings such as "Domain:" or "ISSUE:").
 */
export function displayId(externalId: string): string {
  const last =
    externalId
      .split('/')
      .filter((part) => part !== '')
      .at(-1) ?? externalId;
  return last.replace(/\.(traj|json|jsonl)$/, '');
}

// A heading line: short and ending with a colon ("Domain:", "Reason for call:", "ISSUE:").
const HEADING = /^[^\n]{0,100}:$/;
// tau2's task template puts the domain name alone under "Domain:".
const VALUE_UNDER = new Set(['domain:']);

export function taskHeadline(task: string | null): string | null {
  if (task === null) return null;
  const lines = task.split('\n').map((line) => line.trim());
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (line === '' || HEADING.test(line)) continue;
    const previous = lines[index - 1]?.toLowerCase() ?? '';
    if (VALUE_UNDER.has(previous)) continue;
    return line;
  }
  return lines.find((line) => line !== '') ?? null;
}
