import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerSilentNote } from './server-silent-note';

afterEach(cleanup);

describe('the note on imports whose server stopped answering', () => {
  it('says since when, and that the import goes on once the server is back', () => {
    const at = new Date(2026, 11, 6, 16, 45, 12).getTime();
    render(<ServerSilentNote silent importing={1} lastAnswerAt={at} />);
    expect(screen.getByTestId('server-silent').textContent).toBe(
      'The server has not answered since 16:45:12: the figures below are its last. If it stopped, start it again: an import it held goes on from its last stored part.',
    );
  });

  it('says nothing while the server answers, or when no import is going', () => {
    render(
      <>
        <ServerSilentNote silent={false} importing={2} lastAnswerAt={1} />
        <ServerSilentNote silent importing={0} lastAnswerAt={1} />
      </>,
    );
    expect(screen.queryByTestId('server-silent')).toBeNull();
  });
});
