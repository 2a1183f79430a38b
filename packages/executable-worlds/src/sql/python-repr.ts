/**
 * Values written the way InterCode recorded SQL results: Python's `repr` of the rows the MySQL
 * connector returned (`[('a', 1), ('b', None)]`).
 */
export type SqlValue = string | number | null | Uint8Array;

export function pythonString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const c of text) {
    if (c === '\\') out += '\\\\';
    else if (c === quote) out += `\\${c}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (c < ' ' || c === '\u007f')
      out += `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else out += c;
  }
  return out + quote;
}

/** Python's float repr: shortest round-trip digits, as JS prints them, in Python's notation. */
function pythonFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) {
    const [mantissa = '', exponent = '0'] = value.toExponential().split('e');
    const power = Number(exponent);
    return `${mantissa}e${power < 0 ? '-' : '+'}${String(Math.abs(power)).padStart(2, '0')}`;
  }
  const text = String(value);
  return text.includes('.') ? text : `${text}.0`;
}

export function pythonValue(value: SqlValue, isFloat: boolean): string {
  if (value === null) return 'None';
  if (typeof value === 'string') return pythonString(value);
  if (typeof value === 'number')
    return isFloat
      ? pythonFloat(value)
      : Number.isInteger(value)
        ? String(value)
        : pythonFloat(value);
  let bytes = "b'";
  for (const byte of value)
    bytes +=
      byte >= 0x20 && byte < 0x7f && byte !== 0x27 && byte !== 0x5c
        ? String.fromCharCode(byte)
        : `\\x${byte.toString(16).padStart(2, '0')}`;
  return `${bytes}'`;
}

/** `[(a, b), …]`; a one-column row is `(a,)` as Python writes a 1-tuple. */
export function pythonRows(rows: readonly (readonly string[])[]): string {
  return `[${rows.map((row) => `(${row.join(', ')}${row.length === 1 ? ',' : ''})`).join(', ')}]`;
}
