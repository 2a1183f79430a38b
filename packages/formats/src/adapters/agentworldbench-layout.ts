/**
 * The text layout of AgentWorldBench rows, read back into plain actions and observations. An
 * action prompt is `### Turn N\n**Action:**\n…`, often with the action in a fenced block; an
 * observation begins with `**Environment Observation:**`. (packages/worlds writes this layout for
 * the official protocol; formats may not depend on it, so the reading side lives here, and the
 * `/v1` chat parser uses it too, so a chat and an imported file give the same actions.)
 */
export const OBSERVATION_MARKER = '**Environment Observation:**';
const ACTION_LABEL = '**Action:**';
const TURN_HEADING = /^### Turn \d+[ \t]*\r?\n/;
const FENCE = /^```[\w-]*[ \t]*\r?\n([\s\S]*?)\r?\n```[ \t]*(?:\r?\n)?$/;

/**
 * The action a prompt carries: without the turn heading and action label, and out of its code
 * fence when the whole rest is one fenced block. Text in any other layout is returned as it is.
 */
export function rowActionText(prompt: string): string {
  const heading = TURN_HEADING.exec(prompt);
  if (heading === null) return prompt;
  const rest = prompt.slice(heading[0].length);
  if (!rest.startsWith(ACTION_LABEL)) return prompt;
  const action = rest.slice(ACTION_LABEL.length).replace(/^[ \t]*\r?\n/, '');
  const fenced = FENCE.exec(action.trim());
  return fenced?.[1] ?? action;
}

/**
 * The observation a response carries: the leading marker and the line break after it removed,
 * the content otherwise exact (trailing newlines of terminal output matter). A response without
 * the marker is returned as it is.
 */
export function rowObservationText(response: string): string {
  if (!response.startsWith(OBSERVATION_MARKER)) return response;
  return response.slice(OBSERVATION_MARKER.length).replace(/^[ \t]*\r?\n/, '');
}
