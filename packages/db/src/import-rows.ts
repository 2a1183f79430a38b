import { deflateRawSync } from 'node:zlib';
import { countTransitions, type Step, type StepMarker, type Trajectory } from '@terrarium/schema';
import { CopyWriter } from './copy-binary';
import { toJsonPayload } from './json-payload';
import {
  AsciiBytes,
  isPlainSearchText,
  LexemeTable,
  searchText,
  stepSearchFields,
  tokenizeInto,
} from './search-vector';

/**
 * A group of trajectories turned into the rows import writes, as binary COPY data, with no database
 * at hand: an import does this in a worker thread while the database writes the group before
 * (import-worker.ts), and only trajectory ids (from the database's sequence) are filled in later.
 *
 * A trajectory's steps are stored in pages (migration 015): up to PAGE_STEPS steps as one
 * raw-deflated JSON array, with their markers and one search vector per step. A row per step cost
 * PGlite about 50 µs each whatever its size, which alone exceeded the import's budget.
 */
export const TRAJECTORY_COLUMNS = `id, dataset_id, batch_id, external_id, source_format,
  source_benchmark, domain, task, system_prompt, tools, tools_inferred, agent_model, outcome_reward,
  outcome_success, metadata, source_file, source_line, source_record_deflated, step_count,
  transition_count, search`;

export const PAGE_COLUMNS = `trajectory_id, first_idx, step_count, markers, body, search, lexemes`;

/** Steps per page at most; a page also closes at PAGE_BYTES of step JSON (one step may exceed it). */
export const PAGE_STEPS = 64;
const PAGE_BYTES = 256 * 1024;
// Level 1: pages and source records are read one at a time; higher levels cost more than they save.
// The source record is its JSON text (migration 007), so export keeps its key order and spelling.
const DEFLATE_LEVEL = 1;

/** Text whose vector the database must compute (search-vector.ts says which). */
export type FallbackText =
  | { kind: 'step'; action: string; reasoning: string | null; content: string | null }
  | { kind: 'trajectory'; externalId: string; task: string | null };

/**
 * A row ready but for its search vectors: `prefix` holds every field before them (row header
 * included), `vectors` the known ones in binary form and null where `texts` says what to compute.
 */
export interface PendingRow {
  owner: number;
  /** Offset of the trajectory id within `prefix`. */
  idAt: number;
  prefix: Uint8Array;
  vectors: (Uint8Array | null)[];
  texts: (FallbackText | null)[];
}

export interface EncodedGroup {
  trajectories: number;
  steps: number;
  transitions: number;
  /** COPY data for `trajectories` (TRAJECTORY_COLUMNS), ids to be patched at `trajectoryIdAt`. */
  trajectoryRows: Uint8Array;
  trajectoryIdAt: Int32Array;
  trajectoryOwners: Int32Array;
  /** COPY data for `step_pages` (PAGE_COLUMNS), trajectory ids to be patched at `pageIdAt`. */
  pageRows: Uint8Array;
  pageIdAt: Int32Array;
  pageOwners: Int32Array;
  pendingTrajectories: PendingRow[];
  pendingPages: PendingRow[];
}

export interface GroupContext {
  datasetId: string;
  batchId: string;
}

/** A trajectory to encode, with its source record's own bytes when the reader kept them. */
export interface EncodeItem {
  trajectory: Trajectory;
  /** The record's JSON text as read (it is stored as is, not serialized again). */
  sourceBytes?: Uint8Array;
}

interface PreparedPage {
  owner: number;
  first: number;
  count: number;
  markers: string;
  body: Uint8Array;
  vectors: (Uint8Array | null)[];
  texts: (FallbackText | null)[];
  /** The page's lexemes (stripped vector, binary); null when some step is left to the database. */
  lexemes: Uint8Array | null;
}

interface PreparedTrajectory {
  owner: number;
  trajectory: Trajectory;
  transitions: number;
  source: Uint8Array;
  /** Binary vector of external id and task; null when left to the database. */
  vector: Uint8Array | null;
}

/**
 * Encodes groups: tokenizing, JSON and the compression of page bodies and source records, all in
 * the calling thread (an import's reading thread; the server's thread for the few trajectories a
 * fork or a curriculum generation stores). Compression is synchronous on purpose: zlib's
 * asynchronous calls cost 3x the CPU of the same work done synchronously one at a time, and 15-30x
 * with a group's thousands of calls in flight (a zlib state and a thread-pool hop each; measured
 * on 8,000 9 KB buffers at level 1), and on two cores there is no idle core for them to use.
 */
export class GroupEncoder {
  private readonly text = new AsciiBytes();
  private readonly stepTable = new LexemeTable(true);
  private readonly pageTable = new LexemeTable(false);

  encode(items: readonly EncodeItem[], context: GroupContext): EncodedGroup {
    const trajectories: PreparedTrajectory[] = [];
    const pages: PreparedPage[] = [];
    items.forEach(({ trajectory, sourceBytes }, owner) => {
      const headerText = searchText([trajectory.externalId, trajectory.task, null]);
      trajectories.push({
        owner,
        trajectory,
        transitions: countTransitions(trajectory),
        source: deflate(sourceBytes ?? Buffer.from(JSON.stringify(trajectory.source.record))),
        vector: isPlainSearchText(headerText) ? this.vectorOf(headerText) : null,
      });
      for (const page of pagesOf(trajectory.steps)) pages.push(this.preparePage(page, owner));
    });
    return writeGroup(trajectories, pages, context);
  }

  private vectorOf(text: string): Uint8Array {
    this.stepTable.reset();
    tokenizeInto(this.text.set(text), this.stepTable);
    const vector = new Uint8Array(this.stepTable.binarySize());
    this.stepTable.writeBinary(vector, 0);
    return vector;
  }

  private preparePage(page: Page, owner: number): PreparedPage {
    const { steps } = page;
    const vectors: (Uint8Array | null)[] = [];
    const texts: (FallbackText | null)[] = [];
    this.pageTable.reset();
    let complete = true;
    for (const step of steps) {
      const fields = stepSearchFields(step);
      const text = searchText([fields.action, fields.reasoning, fields.content]);
      if (!isPlainSearchText(text)) {
        complete = false;
        vectors.push(null);
        texts.push({
          kind: 'step',
          action: toJsonPayload(step.action),
          reasoning: step.reasoning,
          content: fields.content,
        });
        continue;
      }
      vectors.push(this.vectorOf(text));
      this.pageTable.addAll(this.stepTable);
      texts.push(null);
    }
    let lexemes: Uint8Array | null = null;
    if (complete) {
      lexemes = new Uint8Array(this.pageTable.binarySize());
      this.pageTable.writeBinary(lexemes, 0);
    }
    // Stored with `index` as the array position, as the steps table's `idx` was.
    const indexed = steps.map((step, at) =>
      step.index === page.first + at ? step : { ...step, index: page.first + at },
    );
    return {
      owner,
      first: page.first,
      count: steps.length,
      markers: toJsonPayload(steps.map(markerOf)),
      body: deflate(Buffer.from(toJsonPayload(indexed), 'utf8')),
      vectors,
      texts,
      lexemes,
    };
  }
}

function deflate(bytes: Uint8Array): Uint8Array {
  return deflateRawSync(bytes, { level: DEFLATE_LEVEL });
}

/** The COPY data of prepared trajectories and pages. */
function writeGroup(
  trajectories: readonly PreparedTrajectory[],
  pages: readonly PreparedPage[],
  context: GroupContext,
): EncodedGroup {
  const trajectoryRows = new CopyWriter(1 << 20);
  const pageRows = new CopyWriter(1 << 20);
  const trajectoryIdAt: number[] = [];
  const trajectoryOwners: number[] = [];
  const pageIdAt: number[] = [];
  const pageOwners: number[] = [];
  const pendingTrajectories: PendingRow[] = [];
  const pendingPages: PendingRow[] = [];
  let steps = 0;
  let transitions = 0;
  trajectories.forEach((prepared) => {
    const { trajectory, owner, vector } = prepared;
    steps += trajectory.steps.length;
    transitions += prepared.transitions;
    const writer = vector === null ? new CopyWriter(4096) : trajectoryRows;
    const start = writer.size;
    const idAt = writeTrajectoryPrefix(
      writer,
      trajectory,
      context,
      prepared.transitions,
      prepared.source,
    );
    if (vector !== null) {
      writer.tsvectorBytes(vector);
      trajectoryIdAt.push(idAt);
      trajectoryOwners.push(owner);
      return;
    }
    pendingTrajectories.push({
      owner,
      idAt: idAt - start,
      prefix: writer.bytesSince(start),
      vectors: [null],
      texts: [{ kind: 'trajectory', externalId: trajectory.externalId, task: trajectory.task }],
    });
  });
  pages.forEach((page) => {
    const writer = page.lexemes === null ? new CopyWriter(1 << 14) : pageRows;
    const start = writer.size;
    writer.row(7);
    const idAt = writer.bigint(page.owner);
    writer.integer(page.first);
    writer.integer(page.count);
    writer.text(page.markers);
    writer.bytes(page.body);
    if (page.lexemes !== null) {
      writer.tsvectorArray(page.vectors.flatMap((vector) => (vector === null ? [] : [vector])));
      writer.tsvectorBytes(page.lexemes);
      pageIdAt.push(idAt);
      pageOwners.push(page.owner);
      return;
    }
    pendingPages.push({
      owner: page.owner,
      idAt: idAt - start,
      prefix: writer.bytesSince(start),
      vectors: page.vectors,
      texts: page.texts,
    });
  });
  return {
    trajectories: trajectories.length,
    steps,
    transitions,
    trajectoryRows: trajectoryRows.finish(),
    trajectoryIdAt: Int32Array.from(trajectoryIdAt),
    trajectoryOwners: Int32Array.from(trajectoryOwners),
    pageRows: pageRows.finish(),
    pageIdAt: Int32Array.from(pageIdAt),
    pageOwners: Int32Array.from(pageOwners),
    pendingTrajectories,
    pendingPages,
  };
}

function writeTrajectoryPrefix(
  writer: CopyWriter,
  trajectory: Trajectory,
  context: GroupContext,
  transitionCount: number,
  deflatedSource: Uint8Array,
): number {
  writer.row(21);
  const idAt = writer.bigint(0);
  writer.bigint(context.datasetId);
  writer.bigint(context.batchId);
  writer.text(trajectory.externalId);
  writer.text(trajectory.sourceFormat);
  writer.text(trajectory.sourceBenchmark);
  writer.text(trajectory.domain);
  writer.text(trajectory.task);
  writer.text(trajectory.systemPrompt);
  writer.text(toJsonPayload(trajectory.tools));
  writer.boolean(trajectory.toolsInferred);
  writer.text(trajectory.agentModel);
  writer.float8(trajectory.outcome.reward);
  writer.boolean(trajectory.outcome.success);
  writer.jsonb(toJsonPayload(trajectory.metadata));
  writer.text(trajectory.source.file);
  writer.nullableInteger(trajectory.source.line);
  writer.bytes(deflatedSource);
  writer.integer(trajectory.steps.length);
  writer.integer(transitionCount);
  return idAt;
}

/** Consecutive steps of one trajectory; `first` is the position of the first. */
export interface Page {
  first: number;
  steps: Step[];
}

/**
 * A trajectory's steps cut into pages of at most PAGE_STEPS steps and about PAGE_BYTES of JSON.
 * Positions are array positions (Step.index is defined as exactly that).
 */
export function pagesOf(steps: readonly Step[]): Page[] {
  const pages: Page[] = [];
  let page: Page = { first: 0, steps: [] };
  let bytes = 0;
  steps.forEach((step, position) => {
    // A rough size: observation and reasoning dominate a step's JSON.
    const size = (step.observation?.content.length ?? 0) + (step.reasoning?.length ?? 0) + 200;
    if (page.steps.length > 0 && (page.steps.length >= PAGE_STEPS || bytes + size > PAGE_BYTES)) {
      pages.push(page);
      page = { first: position, steps: [] };
      bytes = 0;
    }
    page.steps.push(step);
    bytes += size;
  });
  if (page.steps.length > 0) pages.push(page);
  return pages;
}

// `\s` in the database's regular expressions (PGlite's C.UTF-8): ASCII white space, NEL, the
// Unicode spaces U+2000-U+2006 and U+2008-U+200A, line and paragraph separators, U+205F, U+3000.
const LABEL_SPACE = /[\t\n\v\f\r \u0085\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]+/g;

/** The first `count` code points of `text`. */
function leftCodePoints(text: string, count: number): string {
  if (text.length <= count) return text;
  let units = 0;
  for (let points = 0; points < count && units < text.length; points++) {
    const code = text.codePointAt(units) ?? 0;
    units += code > 0xffff ? 2 : 1;
  }
  return text.slice(0, units);
}

/**
 * A step's timeline label, as the SQL of the steps table made it: the action's name, command, keys
 * or text, its first 400 characters with white space runs as one space, trimmed, cut at 80.
 */
export function stepLabel(step: Step): string {
  const { action } = step;
  const source =
    action.type === 'tool_call' || action.type === 'browser'
      ? action.name
      : action.type === 'command'
        ? action.command
        : action.type === 'keystrokes'
          ? action.keys
          : action.text;
  const collapsed = leftCodePoints(source, 400).replace(LABEL_SPACE, ' ');
  return leftCodePoints(collapsed.replace(/^ +| +$/g, ''), 80);
}

/** A page's marker of a step, as stored: [actor, action type, label, observation kind, reward]. */
export type StoredMarker = [
  StepMarker['actor'],
  StepMarker['actionType'],
  string,
  StepMarker['observationKind'],
  number | null,
];

function markerOf(step: Step): StoredMarker {
  return [
    step.actor,
    step.action.type,
    stepLabel(step),
    step.observation?.kind ?? null,
    step.reward,
  ];
}
