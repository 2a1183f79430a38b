import { describe, expect, it } from 'vitest';
import { bashMessages, planIntercodeAction, shlexSplit, simplifyPath } from './intercode-transport';

describe('InterCode harness transport', () => {
  it('splits like POSIX shlex: quotes group, backslashes escape outside single quotes', () => {
    expect(shlexSplit(`a "b c" 'd e' f\\ g "h\\"i" 'j\\k'`)).toEqual([
      'a',
      'b c',
      'd e',
      'f g',
      'h"i',
      'j\\k',
    ]);
    expect(() => shlexSplit(`echo "don't`)).toThrow('No closing quotation');
    expect(() => shlexSplit('trailing\\')).toThrow('No escaped character');
  });

  it("wraps the action in the harness's double quotes, so the action's own quotes split it", () => {
    // Recorded in InterCode: `echo "If you have any more questions…"` printed `If`.
    expect(planIntercodeAction('echo "If you have more"', '/')).toEqual({
      kind: 'run',
      script: 'echo If',
      arg0: 'you',
      cwd: '/',
      nextCwd: null,
    });
    // …and `grep -oE "\b([0-9]{1,3}\.)…"` reached bash without quotes or backslashes.
    expect(planIntercodeAction('grep -oE "\\b([0-9]{1,3}\\.){3}\\b" f', '/')).toMatchObject({
      script: 'grep -oE b([0-9]{1,3}.){3}b f',
    });
    expect(planIntercodeAction(`echo "Glad I could help, don't ask"`, '/')).toEqual({
      kind: 'malformed',
    });
  });

  it("keeps the harness's own working directory for cd", () => {
    expect(simplifyPath('/testbed', '../x/./y')).toBe('/x/y');
    expect(simplifyPath('/a', '/b/..')).toBe('/');
    expect(planIntercodeAction('cd dir1', '/testbed')).toEqual({
      kind: 'run',
      script: 'cd /testbed/dir1',
      arg0: '/bin/bash',
      cwd: '/',
      nextCwd: '/testbed/dir1',
    });
  });

  it("prints just-bash's shell errors in GNU bash's words for bash -c", () => {
    expect(
      bashMessages(
        "bash: syntax error: Parse error at 1:20: unexpected EOF while looking for matching `)'\n",
        'cd $(dirname $(which',
        'python)")"',
      ),
    ).toBe(
      'python)")": -c: line 1: unexpected EOF while looking for matching `)\'\npython)")": -c: line 2: syntax error: unexpected end of file\n',
    );
    expect(bashMessages('bash: nproc: command not found\n', 'nproc', '/bin/bash')).toBe(
      '/bin/bash: line 1: nproc: command not found\n',
    );
  });
});
