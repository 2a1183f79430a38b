/** BM25 over several fields, each with its own weight and length statistics (BM25F-like). */

export interface Bm25Parameters {
  k1: number;
  b: number;
}

export const DEFAULT_BM25: Bm25Parameters = { k1: 1.2, b: 0.75 };

/**
 * Words in more than half of the documents are skipped: Robertson and Spärck Jones' idf,
 * log((N − df + 0.5)/(df + 0.5)), is zero or negative there anyway (the +1 form used here only
 * keeps it positive), and these words ("select", "from", "the") make most of the scoring work.
 */
const MAX_DOCUMENT_FRACTION = 0.5;

interface Postings {
  docs: number[];
  counts: number[];
}

class FieldIndex {
  readonly postings = new Map<string, Postings>();
  readonly lengths: number[] = [];
  totalLength = 0;
  /** k1·(1 − b + b·length/average) per document, computed when first scored after a change. */
  norms: Float64Array | null = null;

  add(doc: number, tokens: readonly string[]): void {
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [token, count] of counts) {
      let postings = this.postings.get(token);
      if (postings === undefined) {
        postings = { docs: [], counts: [] };
        this.postings.set(token, postings);
      }
      postings.docs.push(doc);
      postings.counts.push(count);
    }
    this.lengths[doc] = tokens.length;
    this.totalLength += tokens.length;
    this.norms = null;
  }

  normsFor({ k1, b }: Bm25Parameters): Float64Array {
    if (this.norms !== null) return this.norms;
    const average = this.totalLength / Math.max(1, this.lengths.length);
    const norms = new Float64Array(this.lengths.length);
    for (let doc = 0; doc < norms.length; doc++) {
      norms[doc] = k1 * (1 - b + (b * (this.lengths[doc] ?? 0)) / average);
    }
    this.norms = norms;
    return norms;
  }
}

export class Bm25Index<Field extends string> {
  private readonly fields = new Map<Field, FieldIndex>();
  private documents = 0;

  constructor(
    fieldNames: readonly Field[],
    private readonly parameters: Bm25Parameters = DEFAULT_BM25,
  ) {
    for (const field of fieldNames) this.fields.set(field, new FieldIndex());
  }

  get size(): number {
    return this.documents;
  }

  /** Adds a document; returns its number (documents are numbered 0, 1, 2… in order). */
  add(tokensByField: Readonly<Record<Field, readonly string[]>>): number {
    const doc = this.documents++;
    for (const [field, index] of this.fields) index.add(doc, tokensByField[field]);
    return doc;
  }

  /**
   * Adds each document's weighted score for the query into `scores` (indexed by document) and
   * returns the documents it touched. Repeated query tokens count once.
   */
  score(
    query: Readonly<Record<Field, readonly string[]>>,
    weights: Readonly<Record<Field, number>>,
    scores: Float64Array,
  ): number[] {
    const touched: number[] = [];
    const k1 = this.parameters.k1;
    for (const [field, index] of this.fields) {
      const weight = weights[field];
      if (weight === 0 || index.totalLength === 0) continue;
      const norms = index.normsFor(this.parameters);
      for (const token of new Set(query[field])) {
        const postings = index.postings.get(token);
        if (postings === undefined) continue;
        const { docs, counts } = postings;
        if (docs.length > this.documents * MAX_DOCUMENT_FRACTION) continue;
        const idf = Math.log(1 + (this.documents - docs.length + 0.5) / (docs.length + 0.5));
        const factor = weight * idf * (k1 + 1);
        for (let position = 0; position < docs.length; position++) {
          const doc = docs[position] ?? 0;
          const count = counts[position] ?? 0;
          const previous = scores[doc] ?? 0;
          if (previous === 0) touched.push(doc);
          scores[doc] = previous + (factor * count) / (count + (norms[doc] ?? k1));
        }
      }
    }
    return touched;
  }
}
