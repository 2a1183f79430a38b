import { readFile } from 'node:fs/promises';
import {
  AGREEMENT_BOOTSTRAP,
  agreementReport,
  MEASUREMENT_LEVELS,
  parseRatingsJsonl,
  type AgreementSummary,
} from '@terrarium/labels';
import { plural } from '@terrarium/schema';
import { InvalidArgumentError, type Command } from 'commander';
import { CliError } from '../cli-error';

interface AgreementOptions {
  json?: boolean;
  /** `true` for `--bootstrap` with no count: the page's count. */
  bootstrap?: number | true;
  seed?: number;
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('a positive integer');
  return parsed;
}

/** More resamples than this change an interval's third decimal no more, and take minutes. */
const MAX_RESAMPLES = 100_000;

function resampleCount(value: string): number {
  const parsed = positiveInteger(value);
  if (parsed > MAX_RESAMPLES) {
    throw new InvalidArgumentError(`at most ${MAX_RESAMPLES.toLocaleString('en-US')} resamples`);
  }
  return parsed;
}

function format(value: number | null): string {
  return value === null ? 'n/a' : value.toFixed(3);
}

/**
 * "20 items, 3 labelers", with how many of the items could be paired when some could not: an item
 * rated once enters no α, so the bare count would overstate what the figures rest on.
 */
function countsLine(summary: AgreementSummary): string {
  const paired =
    summary.pairableItems === summary.items
      ? ''
      : ` (${summary.pairableItems} rated by two or more)`;
  return `${summary.items} items${paired}, ${summary.labelers} labelers`;
}

function summaryLines(title: string, summary: AgreementSummary): string[] {
  const lines = [`${title}: ${countsLine(summary)}`];
  if (summary.alphaUndefined === undefined) {
    for (const level of MEASUREMENT_LEVELS) {
      const interval = summary.intervals?.[level];
      const range =
        interval && interval.low !== null && interval.high !== null
          ? ` [${format(interval.low)}, ${format(interval.high)}]`
          : '';
      lines.push(`  alpha ${level.padEnd(8)} ${format(summary.krippendorffAlpha[level])}${range}`);
    }
  } else {
    // One line saying why beats four of "n/a" that read like missing data.
    lines.push(`  alpha          ${summary.alphaUndefined}`);
  }
  if (summary.cohenKappaUndefined !== undefined) {
    lines.push(`  kappa          ${summary.cohenKappaUndefined}`);
  } else if (summary.cohenKappa) {
    lines.push(`  kappa nominal  ${format(summary.cohenKappa.nominal)}`);
    lines.push(`  kappa quadratic ${format(summary.cohenKappa.quadratic)}`);
  }
  return lines;
}

/** `terrarium labels agreement FILE`: agreement of the labelers in a JSONL file of ratings. */
export async function runLabelsAgreement(file: string, options: AgreementOptions): Promise<void> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const { ratings, errors } = parseRatingsJsonl(text);
  if (errors.length > 0) {
    const shown = errors.slice(0, 5).map((error) => `${file}:${error.line}: ${error.message}`);
    const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
    throw new CliError(`${shown.join('\n')}${more}`);
  }
  if (ratings.length === 0) throw new CliError(`${file} holds no ratings`);
  // The page's resampling unless told otherwise, so that `--bootstrap` prints the intervals the
  // Agreement page shows for the same labels (an export read back), to the last digit.
  const bootstrap =
    options.bootstrap === undefined
      ? undefined
      : {
          ...AGREEMENT_BOOTSTRAP,
          ...(options.bootstrap === true ? {} : { resamples: options.bootstrap }),
          ...(options.seed === undefined ? {} : { seed: options.seed }),
        };
  const report = agreementReport(ratings, bootstrap === undefined ? {} : { bootstrap });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  const criteria = Object.entries(report.byCriterion ?? {});
  // How the intervals were drawn, so that a reader can draw them again (or tell why another
  // count gives other bounds).
  const resampling =
    bootstrap === undefined
      ? []
      : [
          `${Math.round(bootstrap.confidence * 100)}% intervals: ${plural(bootstrap.resamples, 'resample')} of the items, seed ${bootstrap.seed}`,
        ];
  if (criteria.length < 2) {
    process.stdout.write(`${[...summaryLines('all', report), ...resampling].join('\n')}\n`);
    return;
  }
  // Per criterion first: pooled, each item × criterion is a unit, so a criterion everyone scores
  // high beside one everyone scores low reads as agreement, and the figure can exceed every
  // criterion's own (the agreement page says the same).
  const lines = criteria.flatMap(([criterion, summary]) =>
    summaryLines(`criterion ${criterion || '(none)'}`, summary),
  );
  lines.push(
    ...summaryLines(
      'all criteria pooled (item × criterion as units: differences between criteria count as agreement)',
      report,
    ),
    ...resampling,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The `labels` command group; other label subcommands attach to the returned command. */
export function registerLabelsCommand(program: Command): Command {
  const labels = program.command('labels').description('Labels and their agreement.');
  labels
    .command('agreement')
    .description(
      'Agreement of N labelers in a JSONL file of {"item","labeler","criterion"?,"value"} (value a number or a category).',
    )
    .argument('<file>', 'JSONL ratings')
    .option(
      '--json',
      'print {"items","pairableItems","labelers","krippendorffAlpha":{"nominal","ordinal","interval","ratio"},"cohenKappa"?,"byCriterion"?}',
    )
    .option(
      '--bootstrap [n]',
      `add 95% bootstrap intervals of alpha from N resamples of the items (default ${AGREEMENT_BOOTSTRAP.resamples.toLocaleString('en-US')}, as the Agreement page; at most 100,000)`,
      resampleCount,
    )
    .option(
      '--seed <s>',
      `bootstrap seed (default ${AGREEMENT_BOOTSTRAP.seed}, as the Agreement page)`,
      positiveInteger,
    )
    .action((file: string, options: AgreementOptions) => runLabelsAgreement(file, options));
  return labels;
}
