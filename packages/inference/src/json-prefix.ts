/**
 * An incremental check that bytes are a prefix of one JSON value (RFC 8259), for decoding under a
 * JSON grammar: the decoder offers each candidate token's bytes and keeps the likeliest token that
 * keeps the text a valid prefix. Works on UTF-8 bytes, so a token that ends inside a multi-byte
 * character is fine (non-ASCII bytes only occur inside strings, where JSON takes any of them).
 */

type Container = 'object' | 'array';

type Mode =
  /** A value must come next (start, after `:`, after `,` in an array). */
  | 'value'
  /** After `[`: a value or `]`. */
  | 'value-or-close'
  /** After `{`: a key or `}`. */
  | 'key-or-close'
  /** After `,` in an object: a key. */
  | 'key'
  /** After a key: `:`. */
  | 'colon'
  /** After a value: `,`, the container's closer, or (at the top) the end. */
  | 'after'
  | 'string'
  | 'escape'
  | 'unicode'
  | 'number'
  | 'literal';

/** Where a number is: sign, integer digits, fraction, exponent. */
type NumberPart = 'minus' | 'zero' | 'int' | 'dot' | 'frac' | 'e' | 'e-sign' | 'exp';

interface State {
  mode: Mode;
  stack: Container[];
  /** Whether the string being read is an object key. */
  key: boolean;
  /** Hex digits of a `\u` escape still to come. */
  hex: number;
  number: NumberPart;
  /** The literal being read (`true`, `false`, `null`) and how much of it is read. */
  literal: string;
  literalAt: number;
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES = new Set([...'"\\/bfnrt'].map((char) => char.charCodeAt(0)));
const isDigit = (byte: number) => byte >= 0x30 && byte <= 0x39;
const isHex = (byte: number) =>
  isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);

const NUMBER_ENDS: ReadonlySet<NumberPart> = new Set(['zero', 'int', 'frac', 'exp']);

export class JsonPrefix {
  private state: State;

  constructor(state?: State) {
    this.state = state ?? {
      mode: 'value',
      stack: [],
      key: false,
      hex: 0,
      number: 'int',
      literal: '',
      literalAt: 0,
    };
  }

  clone(): JsonPrefix {
    return new JsonPrefix({ ...this.state, stack: [...this.state.stack] });
  }

  /** Reads bytes; false (and the state unchanged) when they cannot continue a JSON value. */
  accept(bytes: ArrayLike<number>): boolean {
    const next = this.clone();
    for (let i = 0; i < bytes.length; i++) {
      if (!next.step(bytes[i] ?? -1)) return false;
    }
    this.state = next.state;
    return true;
  }

  /** Whether the bytes so far are one whole JSON value (whitespace after it allowed). */
  isComplete(): boolean {
    const { mode, stack, number } = this.state;
    if (stack.length > 0) return false;
    return mode === 'after' || (mode === 'number' && NUMBER_ENDS.has(number));
  }

  /**
   * The shortest text that makes the bytes so far a whole JSON value: an open string closed (a key
   * given a null value), a number or literal finished, every open container closed.
   */
  closing(): string {
    const { mode, stack, key, number, literal, literalAt } = this.state;
    let out = '';
    switch (mode) {
      case 'value':
        out = 'null';
        break;
      case 'value-or-close':
        break;
      case 'key':
        // After `,` in an object: a key must come; give one.
        out = '"":null';
        break;
      case 'colon':
        out = ':null';
        break;
      case 'string':
      case 'escape':
      case 'unicode':
        out = `${mode === 'escape' ? 'n' : mode === 'unicode' ? '0'.repeat(this.state.hex) : ''}"${key ? ':null' : ''}`;
        break;
      case 'number':
        out = NUMBER_ENDS.has(number) ? '' : '0';
        break;
      case 'literal':
        out = literal.slice(literalAt);
        break;
      case 'key-or-close':
      case 'after':
        break;
    }
    for (const container of stack.toReversed()) out += container === 'object' ? '}' : ']';
    return out;
  }

  private step(byte: number): boolean {
    const s = this.state;
    switch (s.mode) {
      case 'string':
        if (byte === 0x22) {
          s.mode = s.key ? 'colon' : 'after';
          return true;
        }
        if (byte === 0x5c) {
          s.mode = 'escape';
          return true;
        }
        // Control characters must be escaped inside a string.
        return byte >= 0x20;
      case 'escape':
        if (byte === 0x75) {
          s.mode = 'unicode';
          s.hex = 4;
          return true;
        }
        if (!ESCAPES.has(byte)) return false;
        s.mode = 'string';
        return true;
      case 'unicode':
        if (!isHex(byte)) return false;
        s.hex--;
        if (s.hex === 0) s.mode = 'string';
        return true;
      case 'literal':
        if (byte !== s.literal.charCodeAt(s.literalAt)) return false;
        s.literalAt++;
        if (s.literalAt === s.literal.length) s.mode = 'after';
        return true;
      case 'number':
        if (this.stepNumber(byte)) return true;
        if (!NUMBER_ENDS.has(s.number)) return false;
        // The number ended; the byte is read as what follows a value.
        s.mode = 'after';
        return this.step(byte);
      default:
        break;
    }
    if (WHITESPACE.has(byte)) return true;
    switch (s.mode) {
      case 'value':
        return this.startValue(byte);
      case 'value-or-close':
        return byte === 0x5d ? this.close('array') : this.startValue(byte);
      case 'key-or-close':
        if (byte === 0x7d) return this.close('object');
        return this.startKey(byte);
      case 'key':
        return this.startKey(byte);
      case 'colon':
        if (byte !== 0x3a) return false;
        s.mode = 'value';
        return true;
      case 'after': {
        const top = s.stack.at(-1);
        if (top === undefined) return false;
        if (byte === 0x2c) {
          s.mode = top === 'object' ? 'key' : 'value';
          return true;
        }
        if (byte === 0x7d) return this.close('object');
        if (byte === 0x5d) return this.close('array');
        return false;
      }
      default:
        return false;
    }
  }

  private startKey(byte: number): boolean {
    if (byte !== 0x22) return false;
    this.state.mode = 'string';
    this.state.key = true;
    return true;
  }

  private close(container: Container): boolean {
    const s = this.state;
    if (s.stack.at(-1) !== container) return false;
    s.stack.pop();
    s.mode = 'after';
    return true;
  }

  private startValue(byte: number): boolean {
    const s = this.state;
    s.key = false;
    switch (byte) {
      case 0x7b:
        s.stack.push('object');
        s.mode = 'key-or-close';
        return true;
      case 0x5b:
        s.stack.push('array');
        s.mode = 'value-or-close';
        return true;
      case 0x22:
        s.mode = 'string';
        return true;
      case 0x2d:
        s.mode = 'number';
        s.number = 'minus';
        return true;
      case 0x74:
      case 0x66:
      case 0x6e:
        s.mode = 'literal';
        s.literal = byte === 0x74 ? 'true' : byte === 0x66 ? 'false' : 'null';
        s.literalAt = 1;
        return true;
      default:
        if (!isDigit(byte)) return false;
        s.mode = 'number';
        s.number = byte === 0x30 ? 'zero' : 'int';
        return true;
    }
  }

  private stepNumber(byte: number): boolean {
    const s = this.state;
    const digit = isDigit(byte);
    switch (s.number) {
      case 'minus':
        if (!digit) return false;
        s.number = byte === 0x30 ? 'zero' : 'int';
        return true;
      case 'zero':
      case 'int':
        if (digit && s.number === 'int') return true;
        if (byte === 0x2e) {
          s.number = 'dot';
          return true;
        }
        if (byte === 0x65 || byte === 0x45) {
          s.number = 'e';
          return true;
        }
        return false;
      case 'dot':
        if (!digit) return false;
        s.number = 'frac';
        return true;
      case 'frac':
        if (digit) return true;
        if (byte === 0x65 || byte === 0x45) {
          s.number = 'e';
          return true;
        }
        return false;
      case 'e':
        if (byte === 0x2b || byte === 0x2d) {
          s.number = 'e-sign';
          return true;
        }
        if (!digit) return false;
        s.number = 'exp';
        return true;
      case 'e-sign':
        if (!digit) return false;
        s.number = 'exp';
        return true;
      case 'exp':
        return digit;
    }
  }
}
