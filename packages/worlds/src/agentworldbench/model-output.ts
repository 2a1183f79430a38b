/** The tag a world model wraps its final prediction in under the AgentWorldBench protocol. */
export const PREDICTION_TAG = 'predicted_observation';

const THINK_OPEN = /<think>/gi;
const THINK_CLOSE = /<\/think>/gi;
const CLOSE_LENGTH = '</think>'.length;

interface Tag {
  at: number;
  open: boolean;
}

function escapeTag(tag: string): string {
  return tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Reasoning removed as the official scorer removes it: each `<think>` paired with the next free
 * `</think>`; a `</think>` left over drops everything before it (the template opened the block);
 * a `<think>` left over drops everything after it up to the next opening response tag, or to the
 * end. The removed ranges are merged and the rest is trimmed.
 */
export function removeThinking(text: string, responseTag: string = PREDICTION_TAG): string {
  const tags: Tag[] = [
    ...[...text.matchAll(THINK_OPEN)].map((m) => ({ at: m.index, open: true })),
    ...[...text.matchAll(THINK_CLOSE)].map((m) => ({ at: m.index, open: false })),
  ].toSorted((a, b) => a.at - b.at);
  if (tags.length === 0) return text;
  const used = new Set<number>();
  const ranges: Array<[number, number]> = [];
  tags.forEach((tag, i) => {
    if (used.has(i) || !tag.open) return;
    for (let j = i + 1; j < tags.length; j++) {
      const other = tags[j];
      if (used.has(j) || other === undefined || other.open) continue;
      ranges.push([tag.at, other.at + CLOSE_LENGTH]);
      used.add(i);
      used.add(j);
      return;
    }
  });
  tags.forEach((tag, i) => {
    if (used.has(i) || tag.open) return;
    ranges.push([0, tag.at + CLOSE_LENGTH]);
    used.add(i);
  });
  const responseOpen = new RegExp(`<${escapeTag(responseTag)}>`, 'i');
  tags.forEach((tag, i) => {
    if (used.has(i) || !tag.open) return;
    const found = responseOpen.exec(text.slice(tag.at));
    ranges.push([tag.at, found === null ? text.length : tag.at + found.index]);
    used.add(i);
  });
  ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of ranges) {
    const last = merged.at(-1);
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  let kept = '';
  let from = 0;
  for (const [start, end] of merged) {
    if (start > from) kept += text.slice(from, start);
    from = end;
  }
  if (from < text.length) kept += text.slice(from);
  return kept.trim();
}

/**
 * The prediction in a model's reply under the AgentWorldBench protocol: reasoning removed, then the
 * content of the LAST `<predicted_observation>` block (to the end when it is never closed), else
 * the cleaned text; "No output" when nothing is left, as the official scorer writes it.
 */
export function parseModelOutput(raw: string, responseTag: string = PREDICTION_TAG): string {
  if (raw === '') return 'No output';
  const cleaned = removeThinking(raw, responseTag);
  const opens = [...cleaned.matchAll(new RegExp(`<${escapeTag(responseTag)}>`, 'gi'))];
  const last = opens.at(-1);
  if (last === undefined) return cleaned.trim() || 'No output';
  const start = last.index + last[0].length;
  const rest = cleaned.slice(start);
  const close = new RegExp(`</${escapeTag(responseTag)}>`, 'i').exec(rest);
  return (close === null ? rest : rest.slice(0, close.index)).trim();
}
