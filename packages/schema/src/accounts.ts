/** Password lengths an account accepts: checked by the server, said by the page before a refusal. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;
