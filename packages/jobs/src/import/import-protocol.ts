import { ImportError, ImportWarning, SourceFormat } from '@terrarium/schema';
import { z } from 'zod';

/**
 * What the importing thread and its reading thread (import-worker.ts) say to each other. Checked
 * with zod on arrival like any other input: the two sides are separate programs in all but name.
 */

/** Errors listed in a report beyond this are counted in one closing entry instead. */
export const MAX_LISTED_ERRORS = 1000;
/**
 * Warnings likewise: a file whose every record has arguments that are not JSON would otherwise
 * list as many warnings as records in its report.
 */
export const MAX_LISTED_WARNINGS = 1000;

/** Where an interrupted import continues, and what it had found before; stored after every group. */
export const ImportCheckpoint = z.object({
  /** The file the next group starts in (files.length: all read). */
  file: z.number().int().nonnegative(),
  /** Records of that file starting at or before this byte offset are stored (-1: none). */
  after: z.number().int(),
  /** Bytes of the files before `file`. */
  bytesBefore: z.number().nonnegative(),
  /** Bytes of `file` read when the group was cut. */
  bytesInFile: z.number().nonnegative(),
  report: z.object({
    trajectories: z.number().int(),
    transitions: z.number().int(),
    quarantined: z.number().int(),
    errors: z.array(ImportError),
    unlistedErrors: z.number().int(),
    /**
     * Files whose reading stopped on an error after their format was known (checkpoints written
     * before it have none; those before `unknownFormatFiles` counted files in no format here too).
     */
    stoppedFiles: z.number().int().nonnegative().default(0),
    /** Files in no known format: not read at all (checkpoints written before it have none). */
    unknownFormatFiles: z.number().int().nonnegative().default(0),
    /** Files not of the forced format (checkpoints written before it have none). */
    wrongFormatFiles: z.number().int().nonnegative().default(0),
    warnings: z.array(ImportWarning),
    /** Warnings past MAX_LISTED_WARNINGS (checkpoints written before it have none). */
    unlistedWarnings: z.number().int().nonnegative().default(0),
    formats: z.array(SourceFormat),
  }),
  /** The current file's tally and format (for its 0-transitions warning), null between files. */
  fileTally: z
    .object({
      format: SourceFormat.nullable(),
      counts: z.object({
        trajectories: z.number().int(),
        transitions: z.number().int(),
        actions: z.number().int(),
        messages: z.number().int(),
        unansweredResults: z.number().int(),
      }),
    })
    .nullable(),
});
export type ImportCheckpoint = z.infer<typeof ImportCheckpoint>;

const Bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'expected bytes');
const Offsets = z.custom<Int32Array>((value) => value instanceof Int32Array, 'expected offsets');

const FallbackText = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('step'),
    action: z.string(),
    reasoning: z.string().nullable(),
    content: z.string().nullable(),
  }),
  z.object({ kind: z.literal('trajectory'), externalId: z.string(), task: z.string().nullable() }),
]);

const PendingRow = z.object({
  owner: z.number().int(),
  idAt: z.number().int(),
  prefix: Bytes,
  vectors: z.array(Bytes.nullable()),
  texts: z.array(FallbackText.nullable()),
});

export const EncodedGroupMessage = z.object({
  trajectories: z.number().int(),
  steps: z.number().int(),
  transitions: z.number().int(),
  trajectoryRows: Bytes,
  trajectoryIdAt: Offsets,
  trajectoryOwners: Offsets,
  pageRows: Bytes,
  pageIdAt: Offsets,
  pageOwners: Offsets,
  pendingTrajectories: z.array(PendingRow),
  pendingPages: z.array(PendingRow),
});

export const Quarantined = z.object({ error: ImportError, excerpt: z.string() });

/** From the reading thread. */
export const WorkerMessage = z.discriminatedUnion('kind', [
  /** A chunk of `file` was taken by the reader: the importer may send another. */
  z.object({ kind: z.literal('consumed'), file: z.number().int() }),
  /** A group to store, and where a resumed import would continue once it is stored. */
  z.object({
    kind: z.literal('group'),
    encoded: EncodedGroupMessage.nullable(),
    quarantined: z.array(Quarantined),
    checkpoint: ImportCheckpoint,
  }),
  z.object({ kind: z.literal('done'), checkpoint: ImportCheckpoint }),
  z.object({ kind: z.literal('failed'), message: z.string() }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;

/** From the importing thread. */
export const ImporterMessage = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('start'),
    files: z.array(z.object({ name: z.string(), size: z.number().nullable() })),
    format: SourceFormat.nullable(),
    context: z.object({ datasetId: z.string(), batchId: z.string() }),
    resume: ImportCheckpoint.nullable(),
  }),
  z.object({ kind: z.literal('chunk'), file: z.number().int(), bytes: Bytes }),
  z.object({ kind: z.literal('file-end'), file: z.number().int() }),
  /** Reading the file failed (I/O): the reader stops there, as if the file ended with an error. */
  z.object({ kind: z.literal('file-error'), file: z.number().int(), message: z.string() }),
]);
export type ImporterMessage = z.infer<typeof ImporterMessage>;
