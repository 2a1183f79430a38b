/** Reported by /api/health and `terrarium --version`; bump with releases. */
export const TERRARIUM_VERSION = '0.1.0';
