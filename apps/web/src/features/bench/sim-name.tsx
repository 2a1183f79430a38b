/**
 * Simulators whose score is not a model's: replay answers with the recorded observation itself, so
 * it scores (near) 100 by construction. It is an upper bound to read the others against, and is
 * labelled as one wherever it appears beside them.
 */
export const ORACLE_SIMS: Readonly<Record<string, string>> = {
  replay:
    'Oracle: replay answers with the recorded observation itself, so it scores ~100 by construction. An upper bound, not a model.',
};

export function oracleNote(sim: string): string | null {
  return ORACLE_SIMS[sim] ?? null;
}

/** A simulator's spec, with an "oracle" tag (its reason on hover) when it is one. */
export function SimName({ sim }: { sim: string }) {
  const note = oracleNote(sim);
  return (
    <>
      {sim}
      {note !== null && (
        <>
          {' '}
          <span className="oracle-tag" title={note} data-testid="oracle-tag">
            oracle
          </span>
        </>
      )}
    </>
  );
}
