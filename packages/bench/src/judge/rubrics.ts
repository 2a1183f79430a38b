import type { Domain } from '@terrarium/schema';

/** Domains with a rubric of their own; every other domain uses `default`. */
export const RUBRIC_DOMAINS = ['terminal', 'tool', 'swe', 'database', 'web', 'search'] as const;
export type RubricDomain = (typeof RUBRIC_DOMAINS)[number] | 'default';

/**
 * What each dimension means in a domain. Written for this project: each says what must match
 * exactly (content the history fixes), what only has to be plausible, and what form is expected.
 */
export const RUBRICS: Record<RubricDomain, string> = {
  terminal: [
    'The environment is a shell. The simulated output should be what the terminal prints for the command.',
    '- Format: stdout/stderr layout as the real program prints it: column alignment of ls/ps/df, prompts, no commentary, empty when the command prints nothing (cd, mkdir, redirections).',
    '- Factuality: file names, file contents, paths and values that earlier commands created, printed or computed must be reproduced exactly; error messages must be the real program\'s wording ("No such file or directory", "command not found") and exit behaviour.',
    '- Consistency: the file system and environment follow from the history: files written earlier exist with what was written; deleted ones are gone; the working directory is right.',
    '- Realism: unseen content (sizes, dates, permissions, PIDs, versions, listings of directories never shown) is plausible for the system and well-formed.',
    '- Quality: an agent reading the simulated output would take the same next step as with the real one.',
  ].join('\n'),
  tool: [
    'The environment is a tool API (function calls answered with JSON or text).',
    '- Format: the response has the real structure: the same JSON keys, nesting and value types, or the same message template for text and errors.',
    '- Factuality: ids, names, prices, statuses and any value that an earlier response or the call arguments fix must be exactly right; the call succeeds or fails as the real API would (unknown ids, invalid arguments).',
    '- Consistency: state changes made by earlier calls (bookings, cancellations, updates, payments) are reflected; nothing contradicts an earlier response.',
    '- Realism: values never seen before (new ids, timestamps, records of the database) are plausible and in the right format.',
    '- Quality: an agent would draw the same conclusion and make the same next call as with the real response.',
  ].join('\n'),
  swe: [
    'The environment is a code repository driven by an agent interface (open, edit, search, run tests, shell).',
    '- Format: the interface\'s own framing (file headers with line counts, numbered lines, "(N more lines below)", search result summaries, edit confirmations, linter messages) is kept.',
    '- Factuality: code and file content shown earlier or written by an earlier edit is reproduced exactly, with the right line numbers; test and script output follows from the code.',
    '- Consistency: edits persist; files opened again show the edited content; line numbers agree with earlier views.',
    '- Realism: unseen source files, test logs and tracebacks look like the real project and language would produce them.',
    '- Quality: the simulated output would lead the agent to the same fix or investigation step.',
  ].join('\n'),
  database: [
    'The environment is a database client answering SQL queries.',
    "- Format: the result has the real shape: the same columns in order, one row per result, the client's layout; errors in the engine's wording.",
    '- Factuality: rows and values that the data (as seen in earlier results) determines must be exact: counts, sums, joins, filters; an invalid query fails as it would.',
    '- Consistency: agrees with the schema and rows seen earlier and with earlier inserts, updates or deletes.',
    '- Realism: rows never seen before are plausible for the schema (types, ranges, names).',
    '- Quality: the agent would accept or revise its query exactly as with the real result.',
  ].join('\n'),
  web: [
    'The environment is a web browser (pages as accessibility trees, HTML or text after an action).',
    '- Format: the page representation has the real form: element ids/roles, tree indentation, URL and title lines.',
    '- Factuality: elements, labels and values that the action or earlier pages fix (typed text, selected options, the page navigated to) are exactly right.',
    '- Consistency: navigation, form state and cart/account state follow from the earlier actions.',
    '- Realism: unseen page content (listings, prices, reviews) is plausible for the site.',
    '- Quality: the agent would click or type the same thing next.',
  ].join('\n'),
  search: [
    'The environment is a search engine or retrieval tool.',
    "- Format: the result list has the real form: titles, URLs, snippets, numbering, the tool's wrapper text.",
    '- Factuality: documents or facts already retrieved earlier are reproduced exactly; results are relevant to the query as a real engine would rank them; no invented facts presented as retrieved from known sources.',
    '- Consistency: repeated queries agree with earlier results; opened pages match their snippets.',
    '- Realism: unseen results are plausible pages with plausible URLs and snippets.',
    '- Quality: the agent would follow the same lead next.',
  ].join('\n'),
  default: [
    "The environment answers the agent's actions; judge the simulated response against the real one.",
    '- Format: the same form as the real response (structure, layout, message templates).',
    '- Factuality: everything the history or the action fixes is exactly right; nothing contradicts known facts.',
    '- Consistency: agrees with everything that happened earlier in the trajectory.',
    '- Realism: content that could not be known is plausible and well-formed.',
    '- Quality: an agent would act the same way next as with the real response.',
  ].join('\n'),
};

const RUBRIC_OF_DOMAIN: Partial<Record<Domain, RubricDomain>> = {
  terminal: 'terminal',
  // An operating system is driven through a shell or a desktop; the shell rubric fits it best.
  os: 'terminal',
  tool: 'tool',
  swe: 'swe',
  database: 'database',
  web: 'web',
  search: 'search',
};

/** The rubric for a domain: its own, or the default. */
export function rubricFor(domain: Domain): string {
  return RUBRICS[RUBRIC_OF_DOMAIN[domain] ?? 'default'];
}
