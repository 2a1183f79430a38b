import { plural } from '@terrarium/schema';

/**
 * Why a queue's items do not all suit its criteria, or null when they do: the criteria of
 * `ruleSet` are written for `domain` items, and `counts` (items by domain) holds others. Said
 * where the queue is made, before it (`where: 'run'`, what a sample can take) and after it
 * (`'queued'`, what it took), as the Rule sets preview says it of the items it previews (walk 52:
 * a queue of default-tool's criteria took terminal items without a word).
 */
export function otherDomainNote(
  ruleSet: string,
  domain: string,
  counts: Readonly<Record<string, number>>,
  where: 'run' | 'queued',
): string | null {
  const others = Object.entries(counts)
    .filter(([name, count]) => name !== domain && count > 0)
    .toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const count = others.reduce((sum, [, n]) => sum + n, 0);
  if (count === 0) return null;
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const [one, many] =
    where === 'run' ? ['item in the run', 'items in the run'] : ['queued item', 'queued items'];
  const which =
    count < total
      ? `${count} of the ${plural(total, one, many)}`
      : total === 1
        ? `the ${one}`
        : `all ${plural(total, one, many)}`;
  const domains = others.map(([name]) => name).join(' or ');
  const what = count === 1 ? `is a ${domains} item` : `are ${domains} items`;
  return `${ruleSet} is written for ${domain} items, but ${which} ${what}: its criteria may not mean there what they intend.`;
}
