import { parseLine, type SimpleCommand } from './shell-words';

/**
 * A program's refusal of an option it does not know, as a shell prints it. just-bash's commands
 * refuse in GNU getopt's words (its one helper prints `uniq: invalid option -- 'w'` or
 * `tar: unrecognized option '--transform'`), its `find` names a test it lacks
 * `find: unknown predicate '-mmin'`, and its builtins `bash: set: -Q: invalid option`; the real
 * programs of a recording refuse in the same words (older findutils quote `-x' with a backtick).
 */
export interface OptionRefusal {
  /** The program that refused, or null when its name was cut off the line (see `refusalsIn`). */
  program: string | null;
  /** As typed: `-w`, `-rnk` (just-bash names a short option's whole cluster), `--transform`. */
  option: string;
  kind: 'short' | 'long' | 'predicate';
}

/** getopt's short form; no option (just-bash's `tar … -` prints `-- ''`) is no refusal of one. */
const SHORT = /^(?:([^\s:]+): )?invalid option -- '(.+)'$/;
const LONG = /^(?:([^\s:]+): )?unrecognized option [`'](--[^'\s]+)'$/;
const PREDICATE = /^(find): unknown predicate [`'](-[^'\s]+)'$/;
/** A builtin's: `bash: set: -Q: invalid option`, `/bin/bash: line 1: set: -Q: invalid option`. */
const BUILTIN = /^(?:[^\s:]+: )?(?:line \d+: )?([\w-]+): (-[^\s:]+): invalid option$/;

/** A path the program was run by (`/usr/bin/sort`) names the same program as its base name. */
function baseName(program: string): string {
  return program.slice(program.lastIndexOf('/') + 1);
}

/**
 * Every option refusal printed in `output`, line by line, in order. A refusal without its program
 * (`invalid option -- 'nk1,1'`) is kept with `program: null`: just-bash sends a pipeline stage's
 * messages down the pipe, so `sort -nk1,1 | cut -d' ' -f2-` cuts the `sort:` off.
 */
export function refusalsIn(output: string): OptionRefusal[] {
  const refusals: OptionRefusal[] = [];
  for (const line of output.split('\n')) {
    const short = SHORT.exec(line);
    if (short?.[2] !== undefined) {
      const program = short[1] === undefined ? null : baseName(short[1]);
      refusals.push({ program, option: `-${short[2]}`, kind: 'short' });
      continue;
    }
    const long = LONG.exec(line);
    if (long?.[2] !== undefined) {
      const program = long[1] === undefined ? null : baseName(long[1]);
      refusals.push({ program, option: long[2], kind: 'long' });
      continue;
    }
    const predicate = PREDICATE.exec(line);
    if (predicate?.[1] !== undefined && predicate[2] !== undefined) {
      refusals.push({ program: predicate[1], option: predicate[2], kind: 'predicate' });
      continue;
    }
    const builtin = BUILTIN.exec(line);
    if (builtin?.[1] !== undefined && builtin[2] !== undefined)
      refusals.push({ program: builtin[1], option: builtin[2], kind: 'short' });
  }
  return refusals;
}

/** A long option's name without its value: `--bytes` of `--bytes=10M`. */
function longName(option: string): string {
  const equals = option.indexOf('=');
  return equals < 0 ? option : option.slice(0, equals);
}

/** Whether `word` as typed carries the refused option (`-cw` carries `-w`). */
function carries(word: string, refusal: OptionRefusal): boolean {
  if (refusal.kind === 'predicate') return word === refusal.option;
  if (refusal.kind === 'long') return longName(word) === longName(refusal.option);
  return /^-[^-]/.test(word) && word.slice(1).includes(refusal.option.slice(1));
}

/**
 * The program the line ran that the refusal is about: the named one if the line has that word and
 * a word carrying the option; for a refusal whose name was cut off, the one simple command with a
 * word carrying the option (none when two could be: `awk -f/ … | cut -f2-` for `-f`). So text a
 * command printed that merely reads like a refusal (`echo "wc: invalid option -- 'u'"`) is none.
 */
function attribute(refusal: OptionRefusal, commands: readonly SimpleCommand[]): string | null {
  const words = commands.flatMap((command) => command.words);
  if (refusal.program !== null) {
    const named = words.some((word) => baseName(word) === refusal.program);
    return named && words.some((word) => carries(word, refusal)) ? refusal.program : null;
  }
  const candidates = new Set(
    commands
      .filter((command) => command.words.some((word) => carries(word, refusal)))
      .map((command) => baseName(command.words[0] ?? '')),
  );
  const [only] = candidates;
  return candidates.size === 1 && only !== undefined && only !== '' ? only : null;
}

/**
 * Whether the recorded refusal is the world's: the same program (a name cut off matches any)
 * refusing the same word of the line. The letter may differ: GNU getopt names the first letter it
 * does not know where just-bash names the cluster or stops at an earlier one (`ls -maxdepth`: GNU
 * refuses `e`, just-bash `m`), and the real program refused that word all the same.
 */
function same(
  world: OptionRefusal,
  recorded: OptionRefusal,
  words: readonly string[],
  program: string,
): boolean {
  if (recorded.program !== null && recorded.program !== program) return false;
  if (recorded.kind !== world.kind) return false;
  return words.some((word) => carries(word, world) && carries(word, recorded));
}

/**
 * The option the world's shell lacks, if its output shows one: a refusal by a program the line
 * ran, of an option the line gave it, that the recorded output (what the real shell printed for
 * the same line) does not show too. Null when the world refused nothing, or refused only what the
 * real programs refused as well (`wc -u`: GNU wc has no `-u` either, so that is the world right).
 */
export function lackedOption(
  actual: string,
  expected: string,
  line: string,
): (OptionRefusal & { program: string }) | null {
  const recorded = refusalsIn(expected);
  const commands = parseLine(line).commands;
  const words = commands.flatMap((command) => command.words);
  for (const refusal of refusalsIn(actual)) {
    const program = attribute(refusal, commands);
    if (program === null) continue;
    if (!recorded.some((real) => same(refusal, real, words, program)))
      return { ...refusal, program };
  }
  return null;
}
