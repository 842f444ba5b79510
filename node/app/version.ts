/** The server version reported by `/health` and `/status` (the package version). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- read at run time from dist/node/app/: an import would copy package.json into dist
export const VERSION: string = (require('../../../package.json') as { version: string }).version;
