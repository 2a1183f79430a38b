import type { Migration } from './migration';

/**
 * Search version 2 indexes an observation as a terminal shows it (`observationSearchText`): escape
 * sequences gone, `\r`, `\b` and cursor moves played. Pages stored before it were indexed on the raw
 * bytes, where `\x1b[33mprivate` made the word `33mprivate` and "private" found nothing. SQL cannot
 * read a page's deflated body, so this migration only lists every page stored so far;
 * `reindexTerminalText` (search-reindex.ts) reads them in JavaScript when the store opens, re-indexes
 * those whose text a terminal shows differently, and takes each off the list in the transaction that
 * rewrites it, so an interrupted open goes on where it stopped.
 */
export const searchTerminalText: Migration = {
  version: 21,
  name: 'search-terminal-text',
  sql: `
CREATE TABLE search_reindex (
  trajectory_id bigint NOT NULL,
  first_idx integer NOT NULL,
  PRIMARY KEY (trajectory_id, first_idx),
  FOREIGN KEY (trajectory_id, first_idx) REFERENCES step_pages ON DELETE CASCADE
);
INSERT INTO search_reindex (trajectory_id, first_idx)
SELECT trajectory_id, first_idx FROM step_pages;
`,
};
