// Training augmentation for the bundled world model (models/export-examples.ts): the ids of one
// rendered example (order, user, payment, phone and reservation numbers) are renamed consistently
// across its prompt and its target. The training side holds 125 tasks; with their real ids the
// model learns them by heart (its held-out loss rose while the training loss fell), while with
// fresh ids in every rendering the only way to write an answer's id right is to copy it from the
// prompt, which is what a held-out task needs.

/** A run of this many digits or more is an id's; shorter ones are counts, prices' cents, times. */
const MIN_DIGITS = 3;

/** Digit runs, and JSON's \uXXXX escapes, which are matched only to be left alone. */
const RUNS = /\\u[0-9a-fA-F]{4}|\d+/g;

/**
 * A renamer for one example: every digit run of 3 or more digits becomes a random run of the same
 * length, the same run always the same replacement, in every text passed to it. Years (19xx,
 * 20xx) are kept: they are dates, not ids, and a date's parts must stay plausible. A replacement
 * keeps a leading zero only where the original had one, so a number stays a number of that size.
 */
export function createDigitRenamer(random: () => number): (text: string) => string {
  const renamed = new Map<string, string>();
  const taken = new Set<string>();
  const fresh = (run: string): string => {
    for (;;) {
      let out = '';
      for (let i = 0; i < run.length; i++) {
        const lowest = i === 0 && run[0] !== '0' ? 1 : 0;
        out += String(lowest + Math.floor(random() * (10 - lowest)));
      }
      // Two ids must not become one; a clash is redrawn (ids of 3 digits have 900 to pick from).
      if (!taken.has(out) || taken.size >= 900) return out;
    }
  };
  return (text) =>
    text.replace(RUNS, (run) => {
      if (run.startsWith('\\') || run.length < MIN_DIGITS || /^(19|20)\d\d$/.test(run)) return run;
      let out = renamed.get(run);
      if (out === undefined) {
        out = fresh(run);
        renamed.set(run, out);
        taken.add(out);
      }
      return out;
    });
}
