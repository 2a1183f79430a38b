import type { Domain, ObservationKind } from '@terrarium/schema';

/** The kind of a predicted observation: terminal output in terminal worlds, JSON when it parses. */
export function predictedKind(content: string, domain: Domain): ObservationKind {
  if (domain === 'terminal') return 'terminal';
  const trimmed = content.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      JSON.parse(trimmed);
      return 'json';
    } catch {
      // Looks like JSON but is not: plain text.
    }
  }
  return 'text';
}
