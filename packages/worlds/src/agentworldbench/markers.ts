/**
 * The text conventions of AgentWorldBench rows: an action prompt opens with a turn heading and an
 * action label, an observation with a marker that the official scorer strips before judging.
 */
export const OBSERVATION_MARKER = '**Environment Observation:**';
const ACTION_LABEL = '**Action:**';
const TURN_HEADING = /^### Turn \d+[ \t]*\r?\n/;

/** An action prompt in the official layout: `### Turn N`, the action label, then the action. */
export function actionPrompt(turnNumber: number, action: string): string {
  return `### Turn ${turnNumber}\n${ACTION_LABEL}\n${action}`;
}

/** An observation in the official layout: the marker on its own line, then the content. */
export function observationResponse(content: string): string {
  return `${OBSERVATION_MARKER}\n${content}`;
}

/**
 * An observation without its marker, as the official scorer cleans predictions and ground truths:
 * a leading marker is cut, otherwise every occurrence is removed, and the result is trimmed.
 */
export function stripObservationMarker(text: string): string {
  if (text.startsWith(OBSERVATION_MARKER)) return text.slice(OBSERVATION_MARKER.length).trim();
  return text.replaceAll(OBSERVATION_MARKER, '').trim();
}

/**
 * The action of a prompt in the official layout (`### Turn N\n**Action:**\n…`): the text after the
 * action label, trimmed. Any other text is returned unchanged, so plain actions pass through.
 */
export function stripActionMarkers(text: string): string {
  const heading = TURN_HEADING.exec(text);
  if (heading === null) return text;
  const rest = text.slice(heading[0].length);
  if (!rest.startsWith(ACTION_LABEL)) return text;
  return rest.slice(ACTION_LABEL.length).trim();
}

/** True when the text is written in the official action layout. */
export function hasActionMarkers(text: string): boolean {
  return stripActionMarkers(text) !== text;
}
