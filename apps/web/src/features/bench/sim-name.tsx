import { oracleNote, trainingDataNote } from '@terrarium/schema';
import './sim-name.css';

/** A simulator's spec, with an "oracle" tag (its reason on hover) when it is one. */
export function SimName({ sim }: { sim: string }) {
  const note = oracleNote(sim);
  const trained = trainingDataNote(sim);
  return (
    <>
      {sim}
      {trained !== null && (
        <>
          {' '}
          <span className="oracle-tag" title={trained} data-testid="trained-tag">
            trained on shipped data
          </span>
        </>
      )}
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
