import type {
  BufferEncoding,
  CpOptions,
  FileContent,
  FsStat,
  IFileSystem,
  MkdirOptions,
  RmOptions,
} from 'just-bash';

// Not re-exported by just-bash's index; derived from the interface so they cannot drift.
type ReadFileOptions = Exclude<Parameters<IFileSystem['readFile']>[1], BufferEncoding | undefined>;
type WriteFileOptions = Exclude<
  Parameters<IFileSystem['writeFile']>[2],
  BufferEncoding | undefined
>;
type DirentEntry = Awaited<ReturnType<NonNullable<IFileSystem['readdirWithFileTypes']>>>[number];

/**
 * A copy-on-write file system for just-bash. Entries are immutable values in a Map keyed by
 * absolute path; `fork()` copies the Map (pointers only, never file bytes), so a fork of a 1 MB
 * workspace costs one Map copy. just-bash has no snapshot API, which is why the world owns its FS.
 */
export type CowEntry =
  | {
      readonly type: 'file';
      readonly bytes: Uint8Array;
      readonly mode: number;
      readonly mtime: Date;
    }
  | { readonly type: 'directory'; readonly mode: number; readonly mtime: Date }
  | {
      readonly type: 'symlink';
      readonly target: string;
      readonly mode: number;
      readonly mtime: Date;
    };

/** A fixed clock: the FS must not read the real one (domain code does no I/O), and replays stay deterministic. */
const EPOCH = new Date(Date.UTC(2024, 0, 1));
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MAX_SYMLINK_HOPS = 32;

function fsError(code: string, message: string, op: string, path: string): Error {
  const error = new Error(`${code}: ${message}, ${op} '${path}'`);
  // just-bash commands read `code` to choose the message they print (e.g. "No such file or directory").
  Object.assign(error, { code });
  return error;
}

export function normalizePath(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

function parentOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at <= 0 ? '/' : path.slice(0, at);
}

function encodingOf(
  options: ReadFileOptions | WriteFileOptions | BufferEncoding | undefined | null,
) {
  if (options === undefined || options === null) return 'utf8';
  if (typeof options === 'string') return options;
  return options.encoding ?? 'utf8';
}

function toBytes(content: FileContent, encoding: string): Uint8Array {
  if (typeof content !== 'string') return content;
  if (encoding === 'binary' || encoding === 'latin1') {
    const bytes = new Uint8Array(content.length);
    for (let i = 0; i < content.length; i++) bytes[i] = content.charCodeAt(i) & 0xff;
    return bytes;
  }
  if (encoding === 'base64') return Uint8Array.from(atob(content), (c) => c.charCodeAt(0));
  if (encoding === 'hex') {
    const bytes = new Uint8Array(content.length >> 1);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(content.slice(2 * i, 2 * i + 2), 16);
    return bytes;
  }
  return encoder.encode(content);
}

function fromBytes(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'binary' || encoding === 'latin1') {
    let text = '';
    for (let i = 0; i < bytes.length; i += 8192) {
      text += String.fromCharCode(...bytes.subarray(i, i + 8192));
    }
    return text;
  }
  if (encoding === 'base64') return btoa(fromBytes(bytes, 'latin1'));
  if (encoding === 'hex') return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return decoder.decode(bytes);
}

/** A frozen state of a CowFs: its entries and their fingerprint. */
export interface CowCapture {
  readonly entries: ReadonlyMap<string, CowEntry>;
  readonly print: Fingerprint;
}

/** What a recording CowFs tells of a step: the bytes it read, and what each changed path held. */
export interface RecordingObserver {
  read(bytes: Uint8Array): void;
  /** Once per path and recording, before its first change; `old` undefined when it was absent. */
  replaced(path: string, old: CowEntry | undefined): void;
}

/** Two 32-bit halves, XOR-folded over entries: order-free, updated in O(1) per change. */
export interface Fingerprint {
  readonly a: number;
  readonly b: number;
}

function hashString(text: string, seed: number): number {
  let h = seed ^ 0x9e3779b9;
  for (let i = 0; i < text.length; i++)
    h = Math.imul(h ^ text.charCodeAt(i), 0x5bd1e995) ^ (h >>> 15);
  return Math.imul(h ^ (h >>> 13), 0xc2b2ae35) ^ (h >>> 16);
}

function hashBytes(bytes: Uint8Array, seed: number): number {
  let h = seed ^ bytes.length;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ (bytes[i] ?? 0), 0x01000193);
  return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ (h >>> 12);
}

/**
 * Bytes a world marked (content it never saw), across every CowFs and fork: they fingerprint
 * apart from the same content unmarked, so a transition memoized in one state is never replayed
 * in a state that differs from it only by its marks.
 */
const marked = new WeakSet<Uint8Array>();

export class CowFs implements IFileSystem {
  private entries: Map<string, CowEntry>;
  /** Decoded UTF-8 text per bytes object: reads of unchanged files skip decoding (steps/s). */
  private readonly textCache: WeakMap<Uint8Array, string>;
  /** Content hash per bytes object, shared by forks: a file's bytes are hashed once. */
  private readonly byteHashes: WeakMap<Uint8Array, Fingerprint>;
  private printA = 0;
  private printB = 0;
  /** Paths changed since `startRecording`, for transition memos; null when not recording. */
  private touched: Set<string> | null = null;
  /** Told of what a recorded step reads and overwrites, for the world's placeholder marks. */
  private observer: RecordingObserver | null = null;

  constructor(
    from?: CowCapture,
    textCache?: WeakMap<Uint8Array, string>,
    byteHashes?: WeakMap<Uint8Array, Fingerprint>,
  ) {
    this.textCache = textCache ?? new WeakMap();
    this.byteHashes = byteHashes ?? new WeakMap();
    if (from === undefined) {
      this.entries = new Map();
      this.put('/', { type: 'directory', mode: 0o755, mtime: EPOCH });
    } else {
      this.entries = new Map(from.entries);
      this.printA = from.print.a;
      this.printB = from.print.b;
    }
  }

  private entryPrint(path: string, entry: CowEntry): Fingerprint {
    const head = `${path}\u0000${entry.type}\u0000${entry.mode}`;
    let a = hashString(head, 1);
    let b = hashString(head, 2);
    if (entry.type === 'file') {
      let content = this.byteHashes.get(entry.bytes);
      if (content === undefined) {
        content = { a: hashBytes(entry.bytes, 3), b: hashBytes(entry.bytes, 4) };
        this.byteHashes.set(entry.bytes, content);
      }
      const mark = marked.has(entry.bytes) ? 0x5f3759df : 0;
      a = Math.imul(a ^ content.a ^ mark, 0x85ebca6b);
      b = Math.imul(b ^ content.b ^ mark, 0xcc9e2d51);
    } else if (entry.type === 'symlink') {
      a ^= hashString(entry.target, 5);
      b ^= hashString(entry.target, 6);
    }
    return { a, b };
  }

  private put(path: string, entry: CowEntry): void {
    const old = this.entries.get(path);
    if (old === entry) return;
    this.touch(path, old);
    if (old !== undefined) this.fold(this.entryPrint(path, old));
    this.entries.set(path, entry);
    this.fold(this.entryPrint(path, entry));
  }

  private drop(path: string): void {
    const old = this.entries.get(path);
    if (old === undefined) return;
    this.touch(path, old);
    this.fold(this.entryPrint(path, old));
    this.entries.delete(path);
  }

  private touch(path: string, old: CowEntry | undefined): void {
    if (this.touched === null || this.touched.has(path)) return;
    this.touched.add(path);
    this.observer?.replaced(path, old);
  }

  private fold(print: Fingerprint): void {
    this.printA ^= print.a;
    this.printB ^= print.b;
  }

  /** Identity of the whole content (paths, types, modes, bytes): equal states, equal prints. */
  fingerprint(): Fingerprint {
    return { a: this.printA, b: this.printB };
  }

  /** Independent copy sharing every (immutable) entry. */
  fork(): CowFs {
    return new CowFs(this.capture(), this.textCache, this.byteHashes);
  }

  /** The current state, frozen: later writes go to a fresh map (one Map copy per capture). */
  capture(): CowCapture {
    const frozen = this.entries;
    this.entries = new Map(frozen);
    return { entries: frozen, print: this.fingerprint() };
  }

  /** Go back to a capture (copied, so the capture stays reusable). */
  restoreEntries(capture: CowCapture): void {
    this.entries = new Map(capture.entries);
    this.printA = capture.print.a;
    this.printB = capture.print.b;
  }

  /**
   * Start logging changed paths (one step of a world, for its transition memo); `observer` hears
   * each file read and the entry each changed path held before the step.
   */
  startRecording(observer: RecordingObserver | null = null): void {
    this.touched = new Set();
    this.observer = observer;
  }

  /** Stop logging; the changes since `startRecording` as (path, entry or null when deleted). */
  stopRecording(): [string, CowEntry | null][] {
    const touched = this.touched ?? new Set<string>();
    this.touched = null;
    this.observer = null;
    return [...touched].map((path) => [path, this.entries.get(path) ?? null]);
  }

  /**
   * Mark a file's content: give it bytes of its own (same content), marked, so the mark is on it
   * alone, not on the copies sharing its old bytes, and follows its copies from now on. The new
   * bytes, or null when the path holds no file.
   */
  markFile(path: string): Uint8Array | null {
    const at = this.resolveLinks(normalizePath(path));
    const entry = this.entries.get(at);
    if (entry?.type !== 'file') return null;
    if (marked.has(entry.bytes)) return entry.bytes;
    const bytes = entry.bytes.slice();
    marked.add(bytes);
    this.put(at, { ...entry, bytes });
    return bytes;
  }

  /** Whether bytes were marked by `markFile`. */
  isMarked(bytes: Uint8Array): boolean {
    return marked.has(bytes);
  }

  /**
   * An absolute path as `realpath` prints it: each part taken in turn, a link replaced by its
   * target before a later `..` applies (`link/..` is the target's parent, not the link's). A
   * missing part is kept as written; null for a loop of links.
   */
  realpathSync(path: string): string | null {
    const pending = path.split('/');
    let current = '/';
    let hops = 0;
    for (let part = pending.shift(); part !== undefined; part = pending.shift()) {
      if (part === '' || part === '.') continue;
      if (part === '..') {
        current = parentOf(current);
        continue;
      }
      const next = current === '/' ? `/${part}` : `${current}/${part}`;
      const entry = this.entries.get(next);
      if (entry?.type !== 'symlink') {
        current = next;
        continue;
      }
      hops += 1;
      if (hops > MAX_SYMLINK_HOPS) return null;
      if (entry.target.startsWith('/')) current = '/';
      pending.unshift(...entry.target.split('/'));
    }
    return current;
  }

  /** Apply changes recorded by `stopRecording` (a memoized transition). */
  applyChanges(changes: readonly (readonly [string, CowEntry | null])[]): void {
    for (const [path, entry] of changes) {
      if (entry === null) this.drop(path);
      else this.put(path, entry);
    }
  }

  /** Synchronous read for world inspection (`readFile` of the World interface). */
  readTextSync(path: string): string | null {
    const entry = this.entries.get(this.resolveLinks(normalizePath(path)));
    return entry?.type === 'file' ? this.text(entry.bytes) : null;
  }

  /** The entry at a path, links followed: the world tells a file it saw from one it did not by it. */
  entrySync(path: string): CowEntry | undefined {
    return this.entries.get(this.resolveLinks(normalizePath(path)));
  }

  /** Every directory (not through links), sorted: empty ones are state too (`find -type d`). */
  directoriesSync(): string[] {
    const out: string[] = [];
    for (const [path, entry] of this.entries) if (entry.type === 'directory') out.push(path);
    return out.toSorted();
  }

  entryCount(): number {
    return this.entries.size;
  }

  /** Bytes of the files whose path `include` accepts (every file without it). */
  totalBytes(include: (path: string) => boolean = () => true): number {
    let total = 0;
    for (const [path, entry] of this.entries)
      if (entry.type === 'file' && include(path)) total += entry.bytes.length;
    return total;
  }

  writeFileSync(path: string, content: FileContent, mode = 0o644): void {
    const at = normalizePath(path);
    this.ensureDirs(parentOf(at));
    this.put(at, { type: 'file', bytes: toBytes(content, 'utf8'), mode, mtime: EPOCH });
  }

  mkdirSync(path: string): void {
    this.ensureDirs(normalizePath(path));
  }

  private text(bytes: Uint8Array): string {
    let text = this.textCache.get(bytes);
    if (text === undefined) {
      text = decoder.decode(bytes);
      this.textCache.set(bytes, text);
    }
    return text;
  }

  private ensureDirs(path: string): void {
    if (this.entries.has(path)) return;
    this.ensureDirs(parentOf(path));
    this.put(path, { type: 'directory', mode: 0o755, mtime: EPOCH });
  }

  private resolveLinks(path: string): string {
    let current = path;
    for (let hop = 0; hop < MAX_SYMLINK_HOPS; hop++) {
      const resolved = this.resolveParents(current);
      const entry = this.entries.get(resolved);
      if (entry?.type !== 'symlink') return resolved;
      current = entry.target.startsWith('/')
        ? normalizePath(entry.target)
        : normalizePath(`${parentOf(resolved)}/${entry.target}`);
    }
    return current;
  }

  /** Resolve symlinks in the directories of a path (not its last part). */
  private resolveParents(path: string): string {
    if (path === '/') return path;
    const parent = parentOf(path);
    const name = path.slice(parent.length === 1 ? 1 : parent.length + 1);
    const resolvedParent = parent === '/' ? '/' : this.resolveLinks(parent);
    return resolvedParent === '/' ? `/${name}` : `${resolvedParent}/${name}`;
  }

  private fileAt(path: string, op: string): { path: string; bytes: Uint8Array } {
    const resolved = this.resolveLinks(normalizePath(path));
    const entry = this.entries.get(resolved);
    if (entry === undefined) throw fsError('ENOENT', 'no such file or directory', op, path);
    if (entry.type !== 'file')
      throw fsError('EISDIR', 'illegal operation on a directory', op, path);
    this.observer?.read(entry.bytes);
    return { path: resolved, bytes: entry.bytes };
  }

  private requireParentDir(path: string, op: string, shown: string): void {
    const parent = this.entries.get(this.resolveLinks(parentOf(path)));
    if (parent === undefined) throw fsError('ENOENT', 'no such file or directory', op, shown);
    if (parent.type !== 'directory') throw fsError('ENOTDIR', 'not a directory', op, shown);
  }

  async readFile(path: string, options?: ReadFileOptions | BufferEncoding): Promise<string> {
    const { bytes } = this.fileAt(path, 'open');
    const encoding = encodingOf(options);
    return encoding === 'utf8' || encoding === 'utf-8'
      ? this.text(bytes)
      : fromBytes(bytes, encoding);
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    // A copy: callers may mutate what they get, and entries are shared between forks.
    return this.fileAt(path, 'open').bytes.slice();
  }

  async writeFile(
    path: string,
    content: FileContent,
    options?: WriteFileOptions | BufferEncoding,
  ): Promise<void> {
    const at = this.resolveLinks(normalizePath(path));
    // The bit bucket: a device, not a file, so writes vanish and the entry stays empty.
    if (at === '/dev/null') return;
    const existing = this.entries.get(at);
    if (existing?.type === 'directory') {
      throw fsError('EISDIR', 'illegal operation on a directory', 'open', path);
    }
    this.requireParentDir(at, 'open', path);
    const bytes = toBytes(content, encodingOf(options));
    // Copy caller-owned arrays: they may be reused after the call, and entries must stay immutable.
    const owned = typeof content === 'string' ? bytes : bytes.slice();
    this.put(at, { type: 'file', bytes: owned, mode: existing?.mode ?? 0o644, mtime: EPOCH });
  }

  async appendFile(
    path: string,
    content: FileContent,
    options?: WriteFileOptions | BufferEncoding,
  ): Promise<void> {
    const at = this.resolveLinks(normalizePath(path));
    if (at === '/dev/null') return;
    const existing = this.entries.get(at);
    if (existing === undefined) return this.writeFile(path, content, options);
    if (existing.type !== 'file') {
      throw fsError('EISDIR', 'illegal operation on a directory', 'open', path);
    }
    const added = toBytes(content, encodingOf(options));
    const bytes = new Uint8Array(existing.bytes.length + added.length);
    bytes.set(existing.bytes);
    bytes.set(added, existing.bytes.length);
    this.put(at, { ...existing, bytes });
  }

  async exists(path: string): Promise<boolean> {
    return this.entries.has(this.resolveLinks(normalizePath(path)));
  }

  private statOf(entry: CowEntry, isLink: boolean): FsStat {
    return {
      isFile: entry.type === 'file',
      isDirectory: entry.type === 'directory',
      isSymbolicLink: isLink,
      mode: entry.mode,
      size:
        entry.type === 'file'
          ? entry.bytes.length
          : entry.type === 'symlink'
            ? entry.target.length
            : 4096,
      mtime: entry.mtime,
    };
  }

  async stat(path: string): Promise<FsStat> {
    const entry = this.entries.get(this.resolveLinks(normalizePath(path)));
    if (entry === undefined) throw fsError('ENOENT', 'no such file or directory', 'stat', path);
    return this.statOf(entry, false);
  }

  async lstat(path: string): Promise<FsStat> {
    const entry = this.entries.get(this.resolveParents(normalizePath(path)));
    if (entry === undefined) throw fsError('ENOENT', 'no such file or directory', 'lstat', path);
    return this.statOf(entry, entry.type === 'symlink');
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    const at = this.resolveParents(normalizePath(path));
    if (this.entries.has(at)) {
      if (options?.recursive === true) return;
      throw fsError('EEXIST', 'file already exists', 'mkdir', path);
    }
    if (options?.recursive === true) {
      this.ensureDirs(at);
      return;
    }
    this.requireParentDir(at, 'mkdir', path);
    this.put(at, { type: 'directory', mode: 0o755, mtime: EPOCH });
  }

  private childNames(dir: string): string[] {
    const prefix = dir === '/' ? '/' : `${dir}/`;
    const names: string[] = [];
    for (const key of this.entries.keys()) {
      if (
        key.length > prefix.length &&
        key.startsWith(prefix) &&
        !key.includes('/', prefix.length)
      ) {
        names.push(key.slice(prefix.length));
      }
    }
    return names.toSorted();
  }

  private dirAt(path: string): string {
    const at = this.resolveLinks(normalizePath(path));
    const entry = this.entries.get(at);
    if (entry === undefined) throw fsError('ENOENT', 'no such file or directory', 'scandir', path);
    if (entry.type !== 'directory') throw fsError('ENOTDIR', 'not a directory', 'scandir', path);
    return at;
  }

  async readdir(path: string): Promise<string[]> {
    return this.childNames(this.dirAt(path));
  }

  async readdirWithFileTypes(path: string): Promise<DirentEntry[]> {
    const dir = this.dirAt(path);
    const prefix = dir === '/' ? '/' : `${dir}/`;
    return this.childNames(dir).map((name) => {
      const entry = this.entries.get(prefix + name);
      return {
        name,
        isFile: entry?.type === 'file',
        isDirectory: entry?.type === 'directory',
        isSymbolicLink: entry?.type === 'symlink',
      };
    });
  }

  private subtree(path: string): string[] {
    const prefix = `${path}/`;
    const keys = [path];
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) keys.push(key);
    return keys;
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    const at = this.resolveParents(normalizePath(path));
    const entry = this.entries.get(at);
    if (entry === undefined) {
      if (options?.force === true) return;
      throw fsError('ENOENT', 'no such file or directory', 'rm', path);
    }
    if (at === '/') throw fsError('EPERM', 'operation not permitted', 'rm', path);
    if (entry.type === 'directory') {
      const keys = this.subtree(at);
      if (keys.length > 1 && options?.recursive !== true) {
        throw fsError('ENOTEMPTY', 'directory not empty', 'rm', path);
      }
      for (const key of keys) this.drop(key);
      return;
    }
    this.drop(at);
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    const from = this.resolveLinks(normalizePath(src));
    const to = this.resolveParents(normalizePath(dest));
    const entry = this.entries.get(from);
    if (entry === undefined) throw fsError('ENOENT', 'no such file or directory', 'cp', src);
    this.requireParentDir(to, 'cp', dest);
    if (entry.type !== 'directory') {
      this.put(to, entry);
      return;
    }
    if (options?.recursive !== true)
      throw fsError('EISDIR', 'illegal operation on a directory', 'cp', src);
    for (const key of this.subtree(from)) {
      const copied = this.entries.get(key);
      if (copied !== undefined) this.put(to + key.slice(from.length), copied);
    }
  }

  async mv(src: string, dest: string): Promise<void> {
    const from = this.resolveParents(normalizePath(src));
    const to = this.resolveParents(normalizePath(dest));
    if (!this.entries.has(from)) throw fsError('ENOENT', 'no such file or directory', 'mv', src);
    this.requireParentDir(to, 'mv', dest);
    if (from === to) return;
    const moved = this.subtree(from).map((key) => [key, this.entries.get(key)] as const);
    for (const [key] of moved) this.drop(key);
    for (const [key, entry] of moved)
      if (entry !== undefined) this.put(to + key.slice(from.length), entry);
  }

  resolvePath(base: string, path: string): string {
    return normalizePath(path.startsWith('/') ? path : `${base}/${path}`);
  }

  getAllPaths(): string[] {
    return [...this.entries.keys()].toSorted();
  }

  async chmod(path: string, mode: number): Promise<void> {
    const at = this.resolveLinks(normalizePath(path));
    const entry = this.entries.get(at);
    if (entry === undefined) throw fsError('ENOENT', 'no such file or directory', 'chmod', path);
    this.put(at, { ...entry, mode });
  }

  async symlink(target: string, linkPath: string): Promise<void> {
    const at = this.resolveParents(normalizePath(linkPath));
    if (this.entries.has(at)) throw fsError('EEXIST', 'file already exists', 'symlink', linkPath);
    this.requireParentDir(at, 'symlink', linkPath);
    this.put(at, { type: 'symlink', target, mode: 0o777, mtime: EPOCH });
  }

  async link(existingPath: string, newPath: string): Promise<void> {
    const { bytes } = this.fileAt(existingPath, 'link');
    const at = this.resolveParents(normalizePath(newPath));
    if (this.entries.has(at)) throw fsError('EEXIST', 'file already exists', 'link', newPath);
    // Not a true hard link (later writes do not propagate); enough for replayed workspaces.
    this.put(at, { type: 'file', bytes, mode: 0o644, mtime: EPOCH });
  }

  async readlink(path: string): Promise<string> {
    const entry = this.entries.get(this.resolveParents(normalizePath(path)));
    if (entry === undefined) throw fsError('ENOENT', 'no such file or directory', 'readlink', path);
    if (entry.type !== 'symlink') throw fsError('EINVAL', 'invalid argument', 'readlink', path);
    return entry.target;
  }

  async realpath(path: string): Promise<string> {
    const at = this.resolveLinks(normalizePath(path));
    if (!this.entries.has(at))
      throw fsError('ENOENT', 'no such file or directory', 'realpath', path);
    return at;
  }

  async utimes(path: string, _atime: Date, mtime: Date): Promise<void> {
    const at = this.resolveLinks(normalizePath(path));
    const entry = this.entries.get(at);
    if (entry === undefined) throw fsError('ENOENT', 'no such file or directory', 'utimes', path);
    this.put(at, { ...entry, mtime });
  }
}
