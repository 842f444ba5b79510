// dependency-cruiser rules for `npm run lint`: no import cycle, and imports point down the layers
// node -> coordinator -> query -> storage (docs/architecture.md, "Layout and the layer rule").
// test/ and scripts/ may import any layer.
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'A cycle between files: split the shared part into a module both can import.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'storage-imports-no-upper-layer',
      comment: 'storage/ knows nothing of the query language, the coordinator or the node.',
      severity: 'error',
      from: { path: '^storage/' },
      to: { path: '^(query|coordinator|node)/' },
    },
    {
      name: 'query-imports-no-upper-layer',
      comment: 'query/ knows nothing of the coordinator or the node (HTTP, cluster).',
      severity: 'error',
      from: { path: '^query/' },
      to: { path: '^(coordinator|node)/' },
    },
    {
      name: 'coordinator-imports-no-node',
      comment: 'coordinator/ knows nothing of the node: node/ wires it up.',
      severity: 'error',
      from: { path: '^coordinator/' },
      to: { path: '^node/' },
    },
    {
      name: 'product-imports-no-tests-or-scripts',
      comment: 'The server does not depend on its tests, benchmarks or soak.',
      severity: 'error',
      from: { path: '^(node|coordinator|query|storage)/' },
      to: { path: '^(test|scripts)/' },
    },
    // The two folder rules below are warnings until the folder cycles present when they were written
    // are gone; then make them 'error'. Cycles between sibling folders: query/plan <-> query/exec,
    // node/http -> node/metadata (time-bound.ts) -> node/http, node/http -> node/cluster -> node/metadata
    // -> node/http. dependency-cruiser counts a folder's subfolders as part of it, so the rule after
    // this one covers a root folder and its own subfolders.
    {
      name: 'no-folder-cycle',
      comment: 'A cycle between two folders: one of them must stop importing the other.',
      severity: 'warn',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      // node/ and storage/ root files (app.ts, engine.ts) import their subfolders, so a subfolder importing
      // a root file closes a cycle: node/{alerts,cluster,http,ingest,metadata} import node/errors.ts,
      // logger.ts, metrics.ts, app.ts or local-scan-source.ts; storage/{buffer,lifecycle,segment,threads}
      // import storage/column.ts, event.ts, keys.ts, partition.ts, rocks.ts and others.
      name: 'subfolder-imports-no-root-file',
      comment: 'A file in a subfolder of node/ or storage/ imports a file of that root folder, which imports its subfolders.',
      severity: 'warn',
      from: { path: '^(node|storage)/[^/]+/' },
      to: { path: '^$1/[^/]+$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
