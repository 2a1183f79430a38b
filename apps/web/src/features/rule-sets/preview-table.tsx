import { formatRuleSetIssues } from '@terrarium/rubrics';
import { formatDelta, formatScore, plural } from '../../app/format';
import { Breakdown } from './breakdown';
import type { PreviewResult, PreviewRow } from './preview-query';

/**
 * What names an item: a run's item by its turn and action (`turn 7/23 get_user_details {…}`), as
 * the run comparison does; an item sent inline by its place in the list. The id's hash is the
 * tooltip, not the name (walk 44).
 */
function itemHeadline(row: PreviewRow): string {
  const where =
    row.place === null
      ? `item ${Number(row.itemId) + 1}`
      : `turn ${row.place.turnIndex + 1}/${row.place.totalTurns}`;
  return row.action === null || row.action === '' ? where : `${where} ${row.action}`;
}

/** What tells items apart below the headline: the bench task and the domain. */
function itemName(row: PreviewRow): string {
  return [row.task, row.domain].filter((part) => part !== null).join(' · ');
}

function itemTitle(row: PreviewRow): string {
  // An item sent inline has no id of its own: its place in the list, as the headline says it.
  if (row.place === null) return `item ${Number(row.itemId) + 1} of those sent`;
  const trajectory = row.place.trajectory;
  return trajectory === null
    ? `item ${row.itemId}`
    : `trajectory ${trajectory} · item ${row.itemId}`;
}

/** E.g. "…written for terminal items, but 2 of the 3 previewed items are tool items: …". */
function otherDomainNote(domain: string, elsewhere: readonly PreviewRow[], total: number): string {
  const count = elsewhere.length;
  const which =
    count < total
      ? `${count} of the ${plural(total, 'previewed item')}`
      : total === 1
        ? 'the previewed item'
        : `all ${plural(total, 'previewed item')}`;
  const domains = [...new Set(elsewhere.map((item) => item.domain))].join(' or ');
  const what = count === 1 ? `is a ${domains} item` : `are ${domains} items`;
  return `This rule set is written for ${domain} items, but ${which} ${what}: its scores there may not mean what it intends.`;
}

/** Each sampled item's draft score, the saved version's, the difference and the breakdown. */
export function PreviewTable({ result }: { result: PreviewResult }) {
  if (!result.ok) {
    return (
      <p className="status status-error" data-testid="preview-invalid">
        {/* The first problem as the editor's status line says it, field and place included
            (walk 52: the colon after the field was missing here). */}
        The draft does not parse: {formatRuleSetIssues(result.issues.slice(0, 1))}
      </p>
    );
  }
  const unscored = result.items.some((item) =>
    item.draft.breakdown.some((entry) => entry.score === null),
  );
  const { domain } = result.ruleSet;
  const elsewhere =
    domain === null
      ? []
      : result.items.filter((item) => item.domain !== null && item.domain !== domain);
  return (
    <>
      {elsewhere.length > 0 && domain !== null && (
        <p className="note" data-testid="preview-other-domain">
          {otherDomainNote(domain, elsewhere, result.items.length)}
        </p>
      )}
      <table className="table preview-table" data-testid="preview-table">
        <thead>
          <tr>
            <th>Item</th>
            <th>Draft</th>
            <th>Saved</th>
            <th>Δ</th>
            <th>Breakdown (draft)</th>
          </tr>
        </thead>
        <tbody>
          {result.items.map((item) => (
            <tr key={item.itemId} data-testid="preview-row">
              <td>
                <span
                  className="mono preview-item-headline"
                  title={itemTitle(item)}
                  data-testid="preview-item-headline"
                >
                  {itemHeadline(item)}
                </span>
                {itemName(item) !== '' && (
                  <div className="muted small" data-testid="preview-item-name">
                    {itemName(item)}
                  </div>
                )}
              </td>
              <td className="mono" data-testid="preview-draft">
                {formatScore(item.draft.score)}
              </td>
              <td className="mono" data-testid="preview-saved">
                {formatScore(item.saved?.score)}
              </td>
              <td className="mono" data-testid="preview-delta">
                {formatDelta(item.delta === null ? null : item.delta * 100)}
              </td>
              <td className="mono small" data-testid="preview-breakdown">
                <Breakdown breakdown={item.draft.breakdown} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {unscored && (
        <p className="muted small" data-testid="preview-no-value">
          No value: the entry does not count for that item. Unscored criteria: those a judge or
          labelers score have no value here, as a preview calls no judge.
        </p>
      )}
    </>
  );
}
