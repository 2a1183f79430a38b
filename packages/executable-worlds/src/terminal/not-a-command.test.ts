import { describe, expect, it } from 'vitest';
import { isNotACommand } from './not-a-command';

describe('isNotACommand', () => {
  it('takes prose a model sent as its command, blank lines and comments for no command', () => {
    expect(
      [
        // InterCode's GPT-4 runs (fs_3#4 and fs_4#4, step 1 of each).
        'Great! If you have any more questions or need further assistance, feel free to ask.',
        'Thank you! If you have any more questions, feel free to ask.',
        "I'm done with this task.",
        'Done.',
        'Sure, here it is:\nThat is all.',
        '',
        '  \n',
        '# nothing to run',
      ].filter((line) => !isNotACommand(line)),
    ).toEqual([]);
  });

  it('takes a shell line for a command, capitalized programs and prose around one included', () => {
    expect(
      [
        'ls -la',
        "Rscript -e 'print(1)'",
        'R --version',
        'X=1 env',
        'GET http://example.com',
        'Makefile',
        'Sure, here it is:\nls -la',
        '# list the files\nls',
        'find . -name "*.txt" | wc -l',
      ].filter(isNotACommand),
    ).toEqual([]);
  });
});
