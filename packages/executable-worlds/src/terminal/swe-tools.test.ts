import { describe, expect, it } from 'vitest';
import {
  CLOSED_EDITOR,
  basicRegex,
  renderWindow,
  runSweTool,
  sweToolOf,
  type EditorState,
  type PathView,
  type SweDialect,
  type ToolContext,
  type ToolOutcome,
} from './swe-tools';

// Files and answers from the SWE-agent recordings (MIT, ../shared/data/swe-agent/LICENSE.upstream).
const REPO = '/klieret__swe-agent-test-repo';
const MISSING_COLON = `#!/usr/bin/env python3


def division(a: float, b: float) -> float
    return a/b


if __name__ == "__main__":
    print(division(123, 15))

`;

function context(
  files: Record<string, string>,
  editor: EditorState = CLOSED_EDITOR,
  dialect: SweDialect = 'classic',
  cwd = REPO,
): ToolContext {
  return {
    cwd,
    editor,
    dialect,
    look: (path): PathView => {
      const text = files[path];
      if (text !== undefined) return { kind: 'file', text };
      if (Object.keys(files).some((file) => file.startsWith(`${path}/`)))
        return { kind: 'directory' };
      return { kind: 'missing' };
    },
    realpath: (path) => path,
    filesUnder: () => null,
  };
}

function run(command: string, tools: ToolContext): ToolOutcome {
  const tool = sweToolOf(command);
  if (tool === null) throw new Error(`not a tool: ${command}`);
  return runSweTool(tool, tools);
}

const numbered = (count: number) => Array.from({ length: count }, (_, at) => `line ${at + 1}`);

describe("SWE-agent's tools", () => {
  it('reads a tool call off its line, the edit body up to end_of_edit', () => {
    expect(sweToolOf('open "tests/missing_colon.py" 4\n')).toEqual({
      name: 'open',
      args: ['tests/missing_colon.py', '4'],
      body: null,
    });
    expect(sweToolOf('edit 6:7\nend_of_edit\n')).toEqual({ name: 'edit', args: ['6:7'], body: [] });
    expect(sweToolOf('edit 2:2 decrypt.py\n    x = 1\nend_of_edit\n')).toEqual({
      name: 'edit',
      args: ['2:2', 'decrypt.py'],
      body: ['    x = 1'],
    });
    expect(sweToolOf('ls -F\n')).toBeNull();
    expect(sweToolOf('create a.py && ls\n')).toBeNull();
  });

  it('opens a whole file, as test-repo-i1 step 1 shows it', () => {
    const outcome = run(
      'open tests/missing_colon.py\n',
      context({ [`${REPO}/tests/missing_colon.py`]: MISSING_COLON }),
    );
    expect(outcome).toEqual({
      kind: 'executed',
      output: `[File: ${REPO}/tests/missing_colon.py (10 lines total)]
1:#!/usr/bin/env python3
2:
3:
4:def division(a: float, b: float) -> float
5:    return a/b
6:
7:
8:if __name__ == "__main__":
9:    print(division(123, 15))
10:
`,
      editor: { kind: 'open', file: `${REPO}/tests/missing_colon.py`, line: 50 },
      writes: [],
    });
  });

  it('opens a long file around a line, with the counts of the recordings', () => {
    // pydicom-1458 step 4: `open …/numpy_handler.py 293` on its 372 lines.
    const pydicom = run(
      'open h.py 293\n',
      context({ [`${REPO}/h.py`]: `${numbered(372).join('\n')}\n` }),
    );
    if (pydicom.kind !== 'executed') throw new Error(pydicom.reason);
    const shown = pydicom.output.split('\n');
    expect(shown.slice(0, 3)).toEqual([
      `[File: ${REPO}/h.py (372 lines total)]`,
      '(272 more lines above)',
      '273:line 273',
    ]);
    expect(shown.slice(-2)).toEqual(['372:line 372', '']);
    // marshmallow-1867: `open src/marshmallow/fields.py 1474` on its 1997 lines.
    const fields = run(
      'open f.py 1474\n',
      context({ [`${REPO}/f.py`]: `${numbered(1997).join('\n')}\n` }),
    );
    if (fields.kind !== 'executed') throw new Error(fields.reason);
    const window = fields.output.split('\n');
    expect([window[1], window[2], window.at(-3), window.at(-2)]).toEqual([
      '(1458 more lines above)',
      '1459:line 1459',
      '1558:line 1558',
      '(439 more lines below)',
    ]);
    expect(fields.editor).toEqual({ kind: 'open', file: `${REPO}/f.py`, line: 1508 });
  });

  it('moves the window with goto and the scrolls, and says when no file is open', () => {
    const files = { [`${REPO}/f.py`]: `${numbered(1997).join('\n')}\n` };
    const editor: EditorState = { kind: 'open', file: `${REPO}/f.py`, line: 50 };
    const goto = run('goto 1474\n', context(files, editor));
    expect(goto.editor).toEqual({ kind: 'open', file: `${REPO}/f.py`, line: 1508 });
    const down = run(
      'scroll_down\n',
      context(files, { kind: 'open', file: `${REPO}/f.py`, line: 1508 }),
    );
    if (down.kind !== 'executed') throw new Error(down.reason);
    expect(down.output.split('\n').slice(1, 3)).toEqual([
      '(1556 more lines above)',
      '1557:line 1557',
    ]);
    const up = run('scroll_up\n', context(files, editor));
    expect(up.editor).toEqual({ ...editor, scrolls: 1 });
    expect(run('goto 2000\n', context(files, editor))).toMatchObject({
      output: 'Error: <line> must be less than or equal to 1997\n',
    });
    expect(run('scroll_down\n', context(files))).toMatchObject({
      output: 'No file open. Use the open command first.\n',
    });
  });

  it('creates a file of one empty line and opens it (pydicom-1458 step 0)', () => {
    const outcome = run(
      'create reproduce_bug.py\n',
      context({ '/pydicom__pydicom/setup.py': '' }, CLOSED_EDITOR, 'classic', '/pydicom__pydicom'),
    );
    expect(outcome).toEqual({
      kind: 'executed',
      output: '[File: /pydicom__pydicom/reproduce_bug.py (1 lines total)]\n1:\n',
      editor: { kind: 'open', file: '/pydicom__pydicom/reproduce_bug.py', line: 50 },
      writes: [{ path: '/pydicom__pydicom/reproduce_bug.py', text: '\n' }],
    });
    const again = run(
      'create tests/missing_colon.py\n',
      context({ [`${REPO}/tests/missing_colon.py`]: 'x = 1\n' }),
    );
    expect(again).toMatchObject({
      output: `Error: File 'tests/missing_colon.py' already exists.\n[File: ${REPO}/tests/missing_colon.py (1 lines total)]\n1:x = 1\n`,
    });
  });

  it('applies an edit and shows the window from its first line (test-repo-i1 step 2)', () => {
    const file = `${REPO}/tests/missing_colon.py`;
    const outcome = run(
      'edit 4:4\ndef division(a: float, b: float) -> float:\nend_of_edit\n',
      context({ [file]: MISSING_COLON }, { kind: 'open', file, line: 50 }),
    );
    const fixed = MISSING_COLON.replace('-> float\n', '-> float:\n');
    expect(outcome).toEqual({
      kind: 'executed',
      output: `[File: ${file} (10 lines total)]
1:#!/usr/bin/env python3
2:
3:
4:def division(a: float, b: float) -> float:
5:    return a/b
6:
7:
8:if __name__ == "__main__":
9:    print(division(123, 15))
10:
File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.
`,
      editor: { kind: 'open', file, line: 50 },
      writes: [{ path: file, text: fixed }],
    });
  });

  it('refuses an edit the gate rejects, with both windows (ctf/crypto/BabyEncryption step 10)', () => {
    const file = '/ctf/decrypt.py';
    const decrypt = `with open('msg.enc', 'rb') as f:\n    cipher = f.read()\n\n\ndecrypted_msg = ''.join([chr((b-18) * pow(123, -1, 256)) for b in cipher])\nprint(decrypted_msg)\n`;
    const editor: EditorState = { kind: 'open', file, line: 50 };
    const outcome = run(
      'edit 2:2\n    cipher = binascii.unhexlify(f.read())\nend_of_edit\n',
      context({ [file]: decrypt }, editor, 'enigma', '/ctf'),
    );
    const view = (second: string) => `[File: ${file} (6 lines total)]
1:with open('msg.enc', 'rb') as f:
2:    cipher = ${second}
3:
4:
5:decrypted_msg = ''.join([chr((b-18) * pow(123, -1, 256)) for b in cipher])
6:print(decrypted_msg)`;
    expect(outcome).toEqual({
      kind: 'executed',
      output: `Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.

ERRORS:
- F821 undefined name 'binascii'

This is how your edit would have looked if applied
-------------------------------------------------
${view('binascii.unhexlify(f.read())')}
-------------------------------------------------

This is the original code before your edit
-------------------------------------------------
${view('f.read()')}
-------------------------------------------------
Your changes have NOT been applied. Please fix your edit command and try again.
You either need to 1) Specify the correct start/end line arguments or 2) Correct your edit code.
DO NOT re-run the same failed edit command. Running it again will lead to the same error.
`,
      editor,
      writes: [],
    });
  });

  it('frames the windows of a refused edit as pydicom-1458 step 5 shows them', () => {
    // 10 lines replacing 287-295: the edited file (373 lines) around line 291 in a 20-line window,
    // the original (372) around 291 in a 19-line one.
    const applied = renderWindow('/p.py', numbered(373), 291, 20);
    expect([applied[1], applied[2], applied.at(-2), applied.at(-1)]).toEqual([
      '(281 more lines above)',
      '282:line 282',
      '301:line 301',
      '(72 more lines below)',
    ]);
    const original = renderWindow('/p.py', numbered(372), 291, 19);
    expect([original[1], original[2], original.at(-2), original.at(-1)]).toEqual([
      '(281 more lines above)',
      '282:line 282',
      '300:line 300',
      '(72 more lines below)',
    ]);
  });

  it('leaves to the fallback what the world does not know', () => {
    const unseen: ToolContext = { ...context({}), look: () => ({ kind: 'unseen' }) };
    expect(run('open README.rst\n', unseen)).toEqual({
      kind: 'fallback',
      reason: `unknown-content:${REPO}/README.rst`,
      editor: { kind: 'open', file: `${REPO}/README.rst`, line: null },
    });
    expect(run('open src/fields.py 1474\n', context({}))).toEqual({
      kind: 'fallback',
      reason: `unknown-path:${REPO}/src/fields.py`,
      editor: { kind: 'unknown' },
    });
    expect(run('edit 1:1\nx\nend_of_edit\n', context({}, { kind: 'unknown' }))).toMatchObject({
      kind: 'fallback',
      reason: 'unknown-open-file',
    });
    expect(run('find_file "fields.py" src\n', context({}))).toMatchObject({
      kind: 'fallback',
      reason: `unknown-tree:${REPO}/src`,
    });
    expect(run('edit\nx\nend_of_edit\n', context({}))).toMatchObject({
      reason: 'unsupported-edit-form',
    });
  });

  it('searches the open file for a plain term', () => {
    const file = `${REPO}/tests/missing_colon.py`;
    const tools = context({ [file]: MISSING_COLON }, { kind: 'open', file, line: 50 });
    expect(run('search_file division\n', tools)).toMatchObject({
      output: `Found 2 matches for "division" in ${file}:
Line 4:def division(a: float, b: float) -> float
Line 9:    print(division(123, 15))
End of matches for "division" in ${file}
`,
    });
    expect(run('search_file "^if"\n', tools)).toMatchObject({
      output: `Found 1 matches for "^if" in ${file}:\nLine 8:if __name__ == "__main__":\nEnd of matches for "^if" in ${file}\n`,
    });
    expect(basicRegex('a\\(b')).toBeNull();
  });

  it('leaves the third scroll in a row to the fallback, its window moved', () => {
    const file = `${REPO}/f.py`;
    const files = { [file]: `${numbered(1997).join('\n')}\n` };
    const first = run('scroll_down\n', context(files, { kind: 'open', file, line: 50 }));
    expect(first.editor).toEqual({ kind: 'open', file, line: 148, scrolls: 1 });
    const second = run('scroll_down\n', context(files, first.editor));
    expect(second).toMatchObject({ kind: 'executed', editor: { line: 246, scrolls: 2 } });
    expect(run('scroll_up\n', context(files, second.editor))).toEqual({
      kind: 'fallback',
      reason: 'unverified-scroll-warning',
      editor: { kind: 'open', file, line: 148, scrolls: 3 },
    });
    // Another tool between them starts the count again.
    const goto = run('goto 1\n', context(files, second.editor));
    expect(run('scroll_down\n', context(files, goto.editor))).toMatchObject({
      kind: 'executed',
      editor: { scrolls: 1 },
    });
  });

  it('leaves an edit range SWE-agent does not write as the emulator would to the fallback', () => {
    const file = `${REPO}/a.py`;
    const tools = context({ [file]: 'x = 1\ny = 2\n' }, { kind: 'open', file, line: 50 });
    // start 0: bash fails on the negative slice `${lines[@]:0:-1}`, the file is not doubled.
    expect(run('edit 0:2\nz = 3\nend_of_edit\n', tools)).toEqual({
      kind: 'fallback',
      reason: 'unverified-edit-range',
      editor: { kind: 'open', file, line: 50 },
    });
    expect(run('edit 3:1\nz = 3\nend_of_edit\n', tools)).toMatchObject({
      kind: 'fallback',
      reason: 'unverified-edit-range',
    });
    // end = start - 1 inserts before `start`, as the array slices in edit_linting.sh do.
    expect(run('edit 2:1\nz = 3\nend_of_edit\n', tools)).toMatchObject({
      kind: 'executed',
      writes: [{ path: file, text: 'x = 1\nz = 3\ny = 2\n' }],
    });
  });

  it("reads `$` and `^` inside a term as grep's basic regex does: as themselves", () => {
    const file = `${REPO}/run.sh`;
    const tools = context(
      { [file]: 'echo $x\necho ${HOME}\na^b\nx\n' },
      { kind: 'open', file, line: 50 },
    );
    expect(run("search_file '$x'\n", tools)).toMatchObject({
      output: `Found 1 matches for "$x" in ${file}:\nLine 1:echo $x\nEnd of matches for "$x" in ${file}\n`,
    });
    expect(run("search_file '${HOME}'\n", tools)).toMatchObject({
      output: `Found 1 matches for "\${HOME}" in ${file}:\nLine 2:echo \${HOME}\nEnd of matches for "\${HOME}" in ${file}\n`,
    });
    expect(run('search_file a^b\n', tools)).toMatchObject({
      output: `Found 1 matches for "a^b" in ${file}:\nLine 3:a^b\nEnd of matches for "a^b" in ${file}\n`,
    });
    expect(basicRegex('^x$')?.test('x')).toBe(true);
    // What `.` matches outside ASCII depends on the container's locale.
    const accented = context({ [file]: 'café\n' }, { kind: 'open', file, line: 50 });
    expect(run('search_file caf.\n', accented)).toMatchObject({
      kind: 'fallback',
      reason: 'locale-dependent-pattern',
    });
  });

  it('prints the path realpath gives, links resolved', () => {
    const real = '/repo/src/a.py';
    const tools: ToolContext = {
      ...context({ [real]: 'x\n' }, CLOSED_EDITOR, 'classic', '/repo'),
      realpath: (path) => path.replace('/repo/lib/', '/repo/src/'),
    };
    expect(run('open lib/a.py\n', tools)).toMatchObject({
      output: `[File: ${real} (1 lines total)]\n1:x\n`,
      editor: { kind: 'open', file: real },
    });
    expect(run('search_file x lib/a.py\n', tools)).toMatchObject({
      output: `Found 1 matches for "x" in ${real}:\nLine 1:x\nEnd of matches for "x" in ${real}\n`,
    });
    const loop: ToolContext = { ...tools, realpath: () => null };
    expect(run('open lib/a.py\n', loop)).toEqual({
      kind: 'fallback',
      reason: 'unknown-realpath',
      editor: { kind: 'unknown' },
    });
  });
});
