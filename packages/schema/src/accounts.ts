/**
 * A browser session's proof travels beside its cookie (packages/api/src/auth/sessions.ts): this
 * header on every request, this query parameter on an event stream (EventSource sends no headers of
 * a page's choosing), and this fragment of the owner's link's redirect that hands it to the page.
 */
export const SESSION_PROOF_HEADER = 'x-terrarium-session-proof';
export const SESSION_PROOF_PARAMETER = 'session_proof';
export const SESSION_PROOF_FRAGMENT = 'session-proof';
/**
 * The query parameter of a one-time link (a download, a model file opened in a tab): what a page
 * navigates to carries this code, never the proof (packages/api/src/auth/download-links.ts).
 */
export const DOWNLOAD_CODE_PARAMETER = 'download_code';
/** The fragment the owner's link is sent on with when it could not log in (the login page says why). */
export const OWNER_LINK_REFUSED_FRAGMENT = 'owner-link-refused';

/** The id of the local owner's principal: a fixed word, never an account's number. */
export const LOCAL_OWNER_ID = 'local-owner';

/** Password lengths an account accepts: checked by the server, said by the page before a refusal. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;
