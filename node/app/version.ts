/** The server version reported by `/health` and `/status` (the package version). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const VERSION: string = (require('../../../package.json') as { version: string }).version;
