import { oracleNote } from '@terrarium/schema';
import './sim-name.css';

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
