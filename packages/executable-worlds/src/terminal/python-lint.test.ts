import { describe, expect, it } from 'vitest';
import { lintPython, newLintErrors } from './python-lint';

// Files and edits from the SWE-agent recordings (MIT, ../shared/data/swe-agent/LICENSE.upstream).
const CHALL = `import string
from secret import MSG

def encryption(msg):
    ct = []
    for char in msg:
        ct.append((123 * char + 18) % 256)
    return bytes(ct)

ct = encryption(MSG)
f = open('./msg.enc','w')
f.write(ct.hex())
f.close()


`;

const DECRYPT = `with open('msg.enc', 'rb') as f:
    cipher = f.read()


decrypted_msg = ''.join([chr((b-18) * pow(123, -1, 256)) for b in cipher])
print(decrypted_msg)
`;

describe('the edit gate of SWE-agent, without Python', () => {
  it('passes the files the recordings accepted', () => {
    expect(lintPython(CHALL)).toEqual([]);
    expect(lintPython(DECRYPT)).toEqual([]);
    // Hex literals are numbers, not a `0` and a name `x10` (ctf/rev/rock's solve.py).
    expect(
      lintPython(
        's = bytearray(b"FLAG")\nfor i in range(len(s)):\n    s[i] = ((s[i]-9)^0x10) & 0xFF\n',
      ),
    ).toEqual([]);
    // Names an f-string reads, and a star import that may bind anything (ctf/crypto/katy).
    expect(
      lintPython('for i in range(17):\n    print(f"[{i}] Got: {r.recvline().decode()}")\n'),
    ).toEqual([{ line: 2, col: 11, problem: "F821 undefined name 'r'" }]);
    expect(lintPython('from z3 import *\ns = Solver()\n')).toEqual([]);
  });

  it('reports an indented line after a plain one, as ctf/crypto/BabyEncryption step 7 shows', () => {
    const edited = CHALL.replace(
      'from secret import MSG',
      '    cipher = binascii.unhexlify(f.read())',
    );
    expect(lintPython(edited)).toEqual([
      { line: 2, col: 5, problem: 'E999 IndentationError: unexpected indent' },
    ]);
  });

  it('reports a name bound nowhere, once per use (BabyEncryption step 10)', () => {
    const edited = DECRYPT.replace('f.read()', 'binascii.unhexlify(f.read())');
    expect(lintPython(edited)).toEqual([
      { line: 2, col: 14, problem: "F821 undefined name 'binascii'" },
    ]);
    expect(lintPython(`import binascii\n${edited}`)).toEqual([]);
  });

  it('reports a closing bracket nothing opened (pydicom-1458 step 6)', () => {
    const text =
      'def f(ds):\n    missing = [e for e in ds]\n    if missing:\n        raise AttributeError(\n            "x" + ", ".join(missing)\n        )\n        )\n';
    expect(lintPython(text)).toEqual([
      { line: 7, col: 9, problem: "E999 SyntaxError: unmatched ')'" },
    ]);
  });

  it('does not answer where the wording depends on the Python version or a parser is needed', () => {
    expect(lintPython('def division(a: float, b: float) -> float\n    return a/b\n')).toBeNull();
    expect(lintPython('print((1)\n')).toBeNull();
    expect(lintPython('if x:\n  y = 1\n')).toBeNull();
    expect(lintPython('__all__ = ["a"]\n')).toBeNull();
  });

  it('keeps only the errors the edit introduced, moved by the lines it added', () => {
    const old = [{ line: 10, col: 1, problem: "F821 undefined name 'x'" }];
    const now = [
      { line: 12, col: 1, problem: "F821 undefined name 'x'" },
      { line: 3, col: 1, problem: "F821 undefined name 'y'" },
    ];
    expect(newLintErrors(old, now, { start: 3, end: 3 }, 3)).toEqual([now[1]]);
    // An old error inside the replaced lines is not excused.
    expect(newLintErrors(old, now, { start: 10, end: 10 }, 3)).toEqual(now);
  });
});
