export interface Migration {
  /** Strictly increasing from 1, never reused or edited once released. */
  version: number;
  name: string;
  sql: string;
}
