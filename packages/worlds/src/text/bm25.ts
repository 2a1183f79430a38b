/** BM25 over several fields, each with its own weight and length statistics (BM25F-like). */

export interface Bm25Parameters {
  k1: number;
  b: number;
}

export const DEFAULT_BM25: Bm25Parameters = { k1: 1.2, b: 0.75 };

interface Postings {
  docs: number[];
  counts: number[];
}

class FieldIndex {
  readonly postings = new Map<string, Postings>();
  readonly lengths: number[] = [];
  totalLength = 0;

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

  /** Documents containing `token` in `field`. */
  documentsWith(field: Field, token: string): readonly number[] {
    return this.fieldIndex(field).postings.get(token)?.docs ?? [];
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
    const { k1, b } = this.parameters;
    for (const [field, index] of this.fields) {
      const weight = weights[field];
      if (weight === 0 || index.totalLength === 0) continue;
      const averageLength = index.totalLength / this.documents;
      for (const token of new Set(query[field])) {
        const postings = index.postings.get(token);
        if (postings === undefined) continue;
        const frequency = postings.docs.length;
        const idf = Math.log(1 + (this.documents - frequency + 0.5) / (frequency + 0.5));
        for (let position = 0; position < postings.docs.length; position++) {
          const doc = postings.docs[position] ?? 0;
          const count = postings.counts[position] ?? 0;
          const length = index.lengths[doc] ?? 0;
          const saturation = (count * (k1 + 1)) / (count + k1 * (1 - b + (b * length) / averageLength));
          if (scores[doc] === 0) touched.push(doc);
          scores[doc] = (scores[doc] ?? 0) + weight * idf * saturation;
        }
      }
    }
    return touched;
  }

  private fieldIndex(field: Field): FieldIndex {
    const index = this.fields.get(field);
    if (index === undefined) throw new Error(`unknown BM25 field "${field}"`);
    return index;
  }
}
