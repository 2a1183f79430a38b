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
    ).toEqual([{ line: 2, col: 25, problem: "F821 undefined name 'r'" }]);
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

/**
 * Differential table: each file with what real flake8 printed for it, recorded once with flake8
 * 7.4.1 (pyflakes 4.0.0, pycodestyle 2.15.0) on CPython 3.11.7, run as
 * `flake8 --isolated --select=F821,F822,F831,E111,E112,E113,E999,E902 file.py`, each message as
 * `L<line> <text>`. The last column says whether the emulator decides the file; where it does, its
 * answer must be flake8's exactly, and where it does not, it must answer null. The rows are the
 * reviewer's probes (review 51, H3) and the recordings' files and edits.
 */
const FLAKE8: readonly (readonly [string, string, readonly string[], boolean])[] = [
  ['ann_only', 'x: int\nprint(x)\n', ["L2 F821 undefined name 'x'"], false],
  ['assign_attr_target', 'import os\nos.x = y = 1\n', [], true],
  ['assign_in_subscript', 'd = {}\nd[k] = 1\n', ["L2 F821 undefined name 'k'"], true],
  [
    'assign_to_call',
    'f() = 1\n',
    [
      "L1 E999 SyntaxError: cannot assign to function call here. Maybe you meant '==' instead of '='?",
    ],
    false,
  ],
  ['async_def', 'async def f(a):\n    async with a as b:\n        return b\n', [], false],
  ['aug_undefined', 'def f():\n    total += 1\n', ["L2 F821 undefined name 'total'"], true],
  ['bracketed_target', '[a, b] = 1, 2\nprint(a, b)\n', [], true],
  ['bytes_prefix', 'x = rb\'abc\' + Rb"d"\n', [], true],
  ['chained_assign', 'a = b = 1\nprint(a, b)\n', [], true],
  [
    'class_attr_in_method_default',
    'class A:\n    X = 1\n\n    def f(self, y=X):\n        return y\n',
    [],
    true,
  ],
  ['class_kw', 'class A(metaclass=type):\n    pass\n', [], true],
  [
    'class_scope',
    'class A:\n    X = 1\n\n    def f(self):\n        return X\n',
    ["L5 F821 undefined name 'X'"],
    true,
  ],
  ['comparison_in_call', 'a = 1\nprint(a == 1)\n', [], true],
  ['comprehension', 'y = [x for x in range(3)]\nprint(x)\n', ["L2 F821 undefined name 'x'"], true],
  ['conditional_def', 'if True:\n    def f():\n        pass\nf()\n', [], true],
  ['continuation', 'x = 1 + \\\n    2\n', [], true],
  ['dangling_dot', 'import os\nx = os.\n', ['L2 E999 SyntaxError: invalid syntax'], false],
  [
    'decorator',
    'import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef f(x):\n    return x\n',
    [],
    true,
  ],
  [
    'dedent_then_indent',
    'def f():\n    return 1\n  x = 2\n',
    ['L3 E999 IndentationError: unindent does not match any outer indentation level'],
    true,
  ],
  ['del_name', 'x = 1\ndel x\nprint(x)\n', ["L3 F821 undefined name 'x'"], false],
  ['dict_comp', 'd = {k: v for k, v in {}.items()}\n', [], true],
  ['dict_keyword_call', 'd = dict(a=1)\n', [], true],
  ['double_eq', 'x = = 1\n', ['L1 E999 SyntaxError: invalid syntax'], false],
  ['dunder_all', '__all__ = []\n', [], false],
  [
    'dup_arg',
    'def f(a, a):\n    pass\n',
    ["L1 F831 duplicate argument 'a' in function definition"],
    false,
  ],
  ['duplicate_kw_call', "print(sep='', sep='')\n", [], false],
  [
    'elif_after_else',
    'if x:\n    pass\nelse:\n    pass\nelif y:\n    pass\n',
    ['L5 E999 SyntaxError: invalid syntax'],
    false,
  ],
  ['ellipsis', 'x = ...\n', [], true],
  ['empty', '', [], true],
  [
    'except_after',
    'try:\n    pass\nexcept Exception as e:\n    pass\nprint(e)\n',
    ["L5 F821 undefined name 'e'"],
    true,
  ],
  ['exception_group', 'try:\n    pass\nexcept ExceptionGroup:\n    pass\n', [], false],
  ['for_else', 'for i in range(3):\n    pass\nelse:\n    print(i)\n', [], true],
  ['from_rel', 'from . import x\nprint(x)\n', [], true],
  ['fstring_attr', "import os\ny = f'{os.sep}'\n", [], true],
  ['fstring_eq', "a = 1\ny = f'{a=}'\n", [], false],
  [
    'fstring_format_spec_name',
    "x = 1\ny = f'{x:{width}}'\n",
    ["L2 F821 undefined name 'width'"],
    true,
  ],
  ['fstring_method_call_kw', "a = 'x'\ny = f'{a.center(width=3)}'\n", [], true],
  ['fstring_nested_quote', 'x = 1\ny = f"{x!r}"\n', [], true],
  ['fstring_spec', "w = 3\nx = f'{w:>{w}}'\n", [], true],
  ['global_at_module', 'global q\nprint(q)\n', ["L2 F821 undefined name 'q'"], false],
  ['global_stmt', 'def f():\n    global G\n    G = 1\n\n\nprint(G)\n', [], false],
  ['import_dotted', 'import os.path\nprint(os)\n', [], true],
  [
    'keyword_arg_in_brackets_bare',
    'x = [a = 1]\n',
    ["L1 E999 SyntaxError: invalid syntax. Maybe you meant '==' or ':=' instead of '='?"],
    false,
  ],
  ['keyword_as_name', 'class = 1\n', ['L1 E999 SyntaxError: invalid syntax'], false],
  ['keyword_call_newline', "print(\n    sep='',\n    end='')\n", [], true],
  ['kw_in_fstring', "a = 1\ny = f'{a if a else 0}'\n", [], true],
  ['kw_in_subscript_call', 'm = {}\nx = m[dict(a=b)]\n', ["L2 F821 undefined name 'b'"], true],
  ['kwonly', 'def f(a, *, b=1, **kw):\n    return a, b, kw\n', [], false],
  ['lambda_default', 'f = lambda a, b=c: a\n', ["L1 F821 undefined name 'c'"], true],
  [
    'local_import',
    'def f():\n    import numpy as np\n    return np\n\n\ndef g():\n    return np.zeros(3)\n',
    ["L7 F821 undefined name 'np'"],
    true,
  ],
  ['matrix', 'x = 1\ny = x @ x\n', [], true],
  [
    'missing_comma_args',
    'def f(a b):\n    return a\n',
    ['L1 E999 SyntaxError: invalid syntax'],
    false,
  ],
  ['missing_operator', 'x = 1 2\n', ['L1 E999 SyntaxError: invalid syntax'], false],
  ['module_attr', 'class A:\n    print(__module__, __qualname__)\n', [], true],
  ['nested_fn_default', 'def f(a=lambda x: x):\n    return a\n', [], true],
  ['nested_kw_in_list', 'x = [dict(a=1)]\n', [], true],
  [
    'nonlocal_bind',
    'def f():\n    def g():\n        nonlocal z\n        z = 1\n    return g\n',
    [],
    true,
  ],
  ['number_underscore', 'x = 1_000.5e-3j\n', [], true],
  ['only_comment', '# hi\n', [], true],
  ['paren_target', '(a, b) = 1, 2\nprint(a, b)\n', [], true],
  [
    'print_py2',
    "print 'x'\n",
    ["L1 E999 SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?"],
    false,
  ],
  [
    'py_method_body_dedented',
    'class A:\n    def f(self):\n        a = 1\n    return self.b\n',
    [],
    false,
  ],
  ['return_module', 'return 1\n', [], false],
  [
    'scope_param_module',
    'def f(self):\n    return 1\n\n\nx = self\n',
    ["L5 F821 undefined name 'self'"],
    true,
  ],
  [
    'self_in_nested_class',
    'class A:\n    def f(self):\n        class B:\n            y = self\n        return B\n',
    [],
    true,
  ],
  [
    'self_outside',
    'class A:\n    def f(self):\n        return 1\n\n    x = self.f()\n',
    ["L5 F821 undefined name 'self'"],
    true,
  ],
  ['semicolon', 'import os; print(os)\n', [], true],
  ['star_args_call', 'def f(*a):\n    return a\n\n\nf(*[1], **{})\n', [], true],
  ['star_target_for', 'for a, *b in [[1, 2]]:\n    print(a, b)\n', [], true],
  ['stmt_after_return_dedent', 'def f():\n    return 1\nprint(f)\n', [], true],
  ['stray_else', 'x = 1\nelse:\n    pass\n', ['L2 E999 SyntaxError: invalid syntax'], false],
  [
    'stray_except',
    'x = 1\nexcept ValueError:\n    pass\n',
    ['L2 E999 SyntaxError: invalid syntax'],
    false,
  ],
  [
    'string_annotation',
    "def f(a: 'Foo') -> None:\n    return a\n",
    ["L1 F821 undefined name 'Foo'"],
    false,
  ],
  ['string_multiline_cont', "x = '''a\nb'''\ny = x\n", [], true],
  ['tabs_in_string', "x = 'a\\tb'\n", [], true],
  ['trailing_op', 'x = 1 +\n', ['L1 E999 SyntaxError: invalid syntax'], false],
  ['try_star', 'try:\n    pass\nexcept* ValueError:\n    pass\n', [], false],
  [
    'try_without_except',
    'try:\n    x = 1\ny = 2\n',
    ["L3 E999 SyntaxError: expected 'except' or 'finally' block"],
    false,
  ],
  ['type_comment', 'x = []  # type: List[int]\n', [], false],
  [
    'typed_default',
    'from typing import List\n\n\ndef f(a: List[int] = None, *args: int):\n    return a, args\n',
    [],
    true,
  ],
  ['undefined_in_all_like', 'x = 1\n', [], true],
  ['unexpected_indent_continuation', 'def f():\n    x = (1,\n  2)\n    return x\n', [], true],
  ['unicode_name', 'é = 1\nprint(é)\n', [], false],
  [
    'unindent_mismatch',
    'if True:\n        x = 1\n    y = 2\n',
    ['L3 E999 IndentationError: unindent does not match any outer indentation level'],
    true,
  ],
  ['unmatched_brace', 'x = 1}\n', ["L1 E999 SyntaxError: unmatched '}'"], false],
  ['use_before_def', 'print(os)\nimport os\n', ["L1 F821 undefined name 'os'"], true],
  ['walrus', 'if (n := 10) > 5:\n    print(n)\n', [], false],
  ['windows_error', 'try:\n    pass\nexcept WindowsError:\n    pass\n', [], true],
  ['with_tuple', "with open('a') as (b, c):\n    print(b, c)\n", [], false],
  [
    'rec_chall',
    "import string\nfrom secret import MSG\n\ndef encryption(msg):\n    ct = []\n    for char in msg:\n        ct.append((123 * char + 18) % 256)\n    return bytes(ct)\n\nct = encryption(MSG)\nf = open('./msg.enc','w')\nf.write(ct.hex())\nf.close()\n\n\n",
    [],
    true,
  ],
  [
    'rec_decrypt',
    "with open('msg.enc', 'rb') as f:\n    cipher = f.read()\n\n\ndecrypted_msg = ''.join([chr((b-18) * pow(123, -1, 256)) for b in cipher])\nprint(decrypted_msg)\n",
    [],
    true,
  ],
  [
    'rec_baby_step7',
    "import string\n    cipher = binascii.unhexlify(f.read())\n\ndef encryption(msg):\n    ct = []\n    for char in msg:\n        ct.append((123 * char + 18) % 256)\n    return bytes(ct)\n\nct = encryption(MSG)\nf = open('./msg.enc','w')\nf.write(ct.hex())\nf.close()\n\n\n",
    ['L2 E999 IndentationError: unexpected indent'],
    true,
  ],
  [
    'rec_baby_step10',
    "with open('msg.enc', 'rb') as f:\n    cipher = binascii.unhexlify(f.read())\n\n\ndecrypted_msg = ''.join([chr((b-18) * pow(123, -1, 256)) for b in cipher])\nprint(decrypted_msg)\n",
    ["L2 F821 undefined name 'binascii'"],
    true,
  ],
  [
    'rec_baby_step10_fixed',
    "import binascii\nwith open('msg.enc', 'rb') as f:\n    cipher = binascii.unhexlify(f.read())\n\n\ndecrypted_msg = ''.join([chr((b-18) * pow(123, -1, 256)) for b in cipher])\nprint(decrypted_msg)\n",
    [],
    true,
  ],
  [
    'rec_rock_hex',
    's = bytearray(b"FLAG")\nfor i in range(len(s)):\n    s[i] = ((s[i]-9)^0x10) & 0xFF\n',
    [],
    true,
  ],
  [
    'rec_katy_fstring',
    'for i in range(17):\n    print(f"[{i}] Got: {r.recvline().decode()}")\n',
    ["L2 F821 undefined name 'r'"],
    true,
  ],
  ['rec_z3_star', 'from z3 import *\ns = Solver()\n', [], true],
  [
    'rec_pydicom_unmatched',
    'def f(ds):\n    missing = [e for e in ds]\n    if missing:\n        raise AttributeError(\n            "x" + ", ".join(missing)\n        )\n        )\n',
    ["L7 E999 SyntaxError: unmatched ')'"],
    true,
  ],
  [
    'rec_humaneval',
    'from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    for idx, elem in enumerate(numbers):\n        for idx2, elem2 in enumerate(numbers):\n            if idx != idx2:\n                distance = abs(elem - elem2)\n                if distance < threshold:\n                    return True\n\n    return False\n',
    [],
    true,
  ],
  [
    'rec_humaneval_else',
    'from typing import List\nelse:\n\ndef f(numbers: List[float]) -> bool:\n    return False\n',
    ['L2 E999 SyntaxError: invalid syntax'],
    false,
  ],
  [
    'no_colon_def',
    'def division(a: float, b: float) -> float\n    return a/b\n',
    ["L1 E999 SyntaxError: expected ':'"],
    false,
  ],
  ['unclosed_paren', 'print((1)\n', ["L1 E999 SyntaxError: '(' was never closed"], false],
  [
    'two_space_indent',
    'if x:\n  y = 1\n',
    ["L1 F821 undefined name 'x'", 'L2 E111 indentation is not a multiple of 4'],
    false,
  ],
  ['tuple_paren_target', '(a, b) = 1, 2\nprint(a, b)\n', [], true],
  ['list_target', '[a, b] = 1, 2\nprint(a, b)\n', [], true],
  ['with_as_tuple', 'with open("x") as (b, c):\n    print(b, c)\n', [], false],
  ['module_in_class', 'class A:\n    m = __module__\n    q = __qualname__\n', [], true],
  ['module_outside_class', 'x = __module__\n', ["L1 F821 undefined name '__module__'"], true],
  ['use_before_import', 'print(os)\nimport os\n', ["L1 F821 undefined name 'os'"], true],
  ['use_before_import_in_func', 'def f():\n    return os.sep\n\n\nimport os\n', [], true],
  [
    'local_import_elsewhere',
    'def f():\n    import numpy as np\n    return np\n\n\ndef g():\n    return np.zeros(3)\n',
    ["L7 F821 undefined name 'np'"],
    true,
  ],
  [
    'comprehension_leak',
    'xs = [y for y in range(3)]\nprint(y)\n',
    ["L2 F821 undefined name 'y'"],
    true,
  ],
  [
    'except_as_after',
    'try:\n    pass\nexcept ValueError as e:\n    pass\nprint(e)\n',
    ["L5 F821 undefined name 'e'"],
    true,
  ],
  ['except_as_inside', 'try:\n    pass\nexcept ValueError as e:\n    print(e)\n', [], true],
  ['name_error_guard', 'try:\n    unicode\nexcept NameError:\n    unicode = str\n', [], true],
  [
    'bare_except_guard',
    'try:\n    foo\nexcept:\n    pass\n',
    ["L2 F821 undefined name 'foo'"],
    true,
  ],
  [
    'class_attr_in_method',
    'class A:\n    X = 1\n\n    def f(self):\n        return X\n',
    ["L5 F821 undefined name 'X'"],
    true,
  ],
  ['class_attr_in_comprehension', 'class A:\n    X = [1]\n    Y = [x for x in X]\n', [], true],
  ['class_attr_in_comp_elt', 'class A:\n    X = 1\n    Y = [X for _ in range(3)]\n', [], true],
  [
    'self_module_level',
    'class A:\n    def f(self):\n        return 1\n\n\nx = self.f()\n',
    ["L6 F821 undefined name 'self'"],
    true,
  ],
  ['aug_local', 'def f():\n    total += 1\n', ["L2 F821 undefined name 'total'"], true],
  ['aug_module', 'total = 0\ntotal += 1\n', [], true],
  ['lambda_param', 'f = lambda a, b=1: a + b + c\n', ["L1 F821 undefined name 'c'"], true],
  ['lambda_forward', 'f = lambda: later\nlater = 1\n', [], true],
  [
    'nested_func_closure',
    'def outer():\n    x = 1\n\n    def inner():\n        return x + y\n    return inner\n',
    ["L5 F821 undefined name 'y'"],
    true,
  ],
  [
    'func_param_outside',
    'def f(a):\n    return a\n\n\nprint(a)\n',
    ["L5 F821 undefined name 'a'"],
    true,
  ],
  ['func_forward_global', 'def f():\n    return g()\n\n\ndef g():\n    return 1\n', [], true],
  ['class_self_name', 'class A:\n    def f(self):\n        return A\n', [], true],
  ['class_name_in_body', 'class A:\n    x = A\n', ["L2 F821 undefined name 'A'"], true],
  ['dunder_class', 'class A:\n    def f(self):\n        return __class__\n', [], true],
  ['decorator_undefined', '@cache\ndef f():\n    pass\n', ["L1 F821 undefined name 'cache'"], true],
  [
    'decorator_dotted',
    'import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef f():\n    pass\n',
    [],
    true,
  ],
  ['default_arg_undefined', 'def f(a=b):\n    return a\n', ["L1 F821 undefined name 'b'"], true],
  [
    'annotation_undefined',
    'def f(a: Foo) -> Bar:\n    return a\n',
    ["L1 F821 undefined name 'Foo'", "L1 F821 undefined name 'Bar'"],
    false,
  ],
  ['star_expr_assign', 'a, *b = [1, 2, 3]\nprint(a, b)\n', [], true],
  ['for_tuple_target', 'for i, (a, b) in enumerate([(1, 2)]):\n    print(i, a, b)\n', [], true],
  ['while_else', 'n = 3\nwhile n:\n    n -= 1\nelse:\n    print(n)\n', [], true],
  [
    'dict_comp_scope',
    'd = {k: v for k, v in [(1, 2)]}\nprint(k)\n',
    ["L2 F821 undefined name 'k'"],
    true,
  ],
  ['generator_arg', 'print(sum(x for x in range(3)))\n', [], true],
  ['nested_comprehension', 'm = [[i * j for j in range(3)] for i in range(3)]\n', [], true],
  [
    'set_literal',
    's = {1, 2, undefined_thing}\n',
    ["L1 F821 undefined name 'undefined_thing'"],
    true,
  ],
  [
    'slice_use',
    'a = [1, 2]\nb = a[lo:hi]\n',
    ["L2 F821 undefined name 'lo'", "L2 F821 undefined name 'hi'"],
    true,
  ],
  ['conditional_expr', 'x = 1 if cond else 2\n', ["L1 F821 undefined name 'cond'"], true],
  ['keyword_arg_not_name', 'print(sep="", end="")\n', [], true],
  ['kwargs_spread', 'd = {}\nprint(**d)\nprint(*d)\n', [], true],
  [
    'positional_after_kw',
    'print(sep="", 1)\n',
    ['L1 E999 SyntaxError: positional argument follows keyword argument'],
    false,
  ],
  [
    'default_order',
    'def f(a=1, b):\n    pass\n',
    ['L1 E999 SyntaxError: non-default argument follows default argument'],
    false,
  ],
  [
    'unexpected_indent_mid',
    'import os\nx = 1\n    y = 2\n',
    ['L3 E999 IndentationError: unexpected indent'],
    true,
  ],
  [
    'unexpected_indent_after_syntax_err',
    'x = = 1\n    y = 2\n',
    ['L1 E999 SyntaxError: invalid syntax'],
    false,
  ],
  [
    'unindent_after_block',
    'if True:\n        x = 1\n    y = 2\n',
    ['L3 E999 IndentationError: unindent does not match any outer indentation level'],
    true,
  ],
  ['unmatched_after_error', 'x = = 1\n)\n', ["L2 E999 SyntaxError: unmatched ')'"], false],
  ['unmatched_mid_line', 'x = 1)\n', ["L1 E999 SyntaxError: unmatched ')'"], false],
  [
    'fstring_undefined_spec',
    "x = 1\ny = f'{x:{width}}'\n",
    ["L2 F821 undefined name 'width'"],
    true,
  ],
  ['fstring_nested_call', "y = f'{len(items)} items'\n", ["L1 F821 undefined name 'items'"], true],
  ['fstring_double_brace', "y = f'{{literal}}'\n", [], true],
  ['fstring_bang_ne', "a = 1\nb = 2\ny = f'{a != b}'\n", [], true],
  [
    'invalid_escape_x',
    "s = '\\x4'\n",
    [
      "L1 E999 SyntaxError: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \\xXX escape",
    ],
    false,
  ],
  ['valid_escapes', "s = '\\x41\\n\\t\\\\x'\n", [], true],
  [
    'octal_legacy',
    'x = 0777\n',
    [
      'L1 E999 SyntaxError: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers',
    ],
    false,
  ],
  ['bool_assign', 'True = 1\n', ['L1 E999 SyntaxError: cannot assign to True'], false],
  ['not_after_compare', 'a = 1\nb = a == not a\n', ['L2 E999 SyntaxError: invalid syntax'], false],
  ['is_not', 'a = None\nb = a is not None\n', [], true],
  ['async_await', 'import asyncio\n\n\nasync def main():\n    await asyncio.sleep(1)\n', [], true],
  ['await_outside', 'import asyncio\nawait asyncio.sleep(1)\n', [], false],
  ['yield_module', 'x = yield 1\n', [], false],
  [
    'return_in_func',
    'def f():\n    return undefined_name\n',
    ["L2 F821 undefined name 'undefined_name'"],
    true,
  ],
  ['semicolons', 'import os; print(os.sep); print(zz)\n', ["L1 F821 undefined name 'zz'"], true],
  ['comment_between_args', 'print(\n    1,  # one\n    2,\n)\n', [], true],
  ['import_paren', 'from os import (path,\n                sep)\nprint(path, sep)\n', [], true],
  ['import_dotted_use', 'import os.path\nprint(os.path.join("a"))\n', [], true],
  [
    'from_import_as',
    'from os import path as p\nprint(p, path)\n',
    ["L2 F821 undefined name 'path'"],
    true,
  ],
  ['future_print', 'from __future__ import print_function\nprint(1)\n', [], true],
  ['del_subscript', 'd = {1: 2}\ndel d[1]\n', [], true],
  ['chained_compare', 'x = 1\nprint(0 < x < 2)\n', [], true],
  [
    'two_undefined_same_line',
    'print(aa, bb)\nprint(aa)\n',
    ["L1 F821 undefined name 'aa'", "L1 F821 undefined name 'bb'", "L2 F821 undefined name 'aa'"],
    true,
  ],
  [
    'nested_class_scope',
    'class A:\n    x = 1\n\n    class B:\n        y = x\n',
    ["L5 F821 undefined name 'x'"],
    true,
  ],
  ['global_in_func', 'def f():\n    global g\n    g = 1\n\n\ndef h():\n    return g\n', [], false],
  ['try_finally_only', 'try:\n    x = 1\nfinally:\n    pass\nprint(x)\n', [], true],
  ['ann_then_use', 'x: int\nprint(x)\n', ["L2 F821 undefined name 'x'"], false],
  ['ann_with_value', 'x: int = 1\nprint(x)\n', [], true],
  [
    'typing_string_subscript',
    "from typing import Optional\nX = Optional['Foo']\n",
    ["L2 F821 undefined name 'Foo'"],
    false,
  ],
  ['aiter_builtin', 'x = aiter\n', [], false],
  ['noqa_line', 'print(zz)  # noqa\n', [], false],
];

describe('agreement with real flake8', () => {
  it.each(FLAKE8)('%s', (_name, text, flake8, decided) => {
    const verdict = lintPython(text);
    expect(verdict?.map((error) => `L${error.line} ${error.problem}`) ?? null).toEqual(
      decided ? flake8 : null,
    );
  });

  it('decides most of the table', () => {
    expect(FLAKE8.length).toBe(183);
    expect(FLAKE8.filter((row) => row[3]).length).toBe(128);
  });
});
