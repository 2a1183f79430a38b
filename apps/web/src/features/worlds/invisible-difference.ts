const CONTEXT = 12;

function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * What tells two texts apart when a line diff would show them equal: they differ only in white
 * space (a trailing newline, `\r\n` against `\n`, a tab for spaces). Returns the first differing
 * place in each, escaped so the difference shows (`…eps\n` against `…eps`), or null when the texts
 * are equal or differ visibly.
 */
export function invisibleDifference(
  expected: string,
  actual: string,
): { expected: string; actual: string } | null {
  if (expected === actual) return null;
  if (squeeze(expected) !== squeeze(actual)) return null;
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at++;
  const around = (text: string) => {
    const from = Math.max(0, at - CONTEXT);
    const shown = JSON.stringify(text.slice(from, at + CONTEXT)).slice(1, -1);
    return `${from > 0 ? '…' : ''}${shown}${at + CONTEXT < text.length ? '…' : ''}`;
  };
  return { expected: around(expected), actual: around(actual) };
}
