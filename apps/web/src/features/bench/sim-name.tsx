import { oracleNote, trainingDataNote } from '@terrarium/schema';
import './sim-name.css';

/**
 * A simulator's spec, with an "oracle" tag (its reason on hover) when it is one, and a tag saying
 * the bundled model trained on the demo's files. `split`: the page already says, per trajectory,
 * whether the model trained on it (Compare's split note), so the general tag is left out there
 * (walk 48: it read as contradicting "never trained on this task" beside it).
 */
export function SimName({ sim, split = false }: { sim: string; split?: boolean }) {
  const note = oracleNote(sim);
  const trained = split ? null : trainingDataNote(sim);
  return (
    <>
      {sim}
      {trained !== null && (
        <>
          {' '}
          <span className="oracle-tag" title={trained} data-testid="trained-tag">
            trained on the demo files
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
