/**
 * Said while imports are under way and the server stops answering the page's polls: their rows
 * keep their last figures, which otherwise read as a slow import (walk 40: "51% stored" for as long
 * as the server was down). An import a stopped server held resumes when the server starts again.
 */
export function ServerSilentNote({
  silent,
  importing,
  lastAnswerAt,
}: {
  /** The last poll of the import list failed. */
  silent: boolean;
  /** Imports the page shows as going. */
  importing: number;
  /** When the server last answered it (ms since the epoch; 0: never). */
  lastAnswerAt: number;
}) {
  if (!silent || importing === 0) return null;
  const since =
    lastAnswerAt === 0 ? '' : ` since ${new Date(lastAnswerAt).toLocaleTimeString('en-GB')}`;
  return (
    <p className="status status-error" role="alert" data-testid="server-silent">
      The server has not answered{since}: the figures below are its last. If it stopped, start it
      again: an import it held goes on from its last stored part.
    </p>
  );
}
