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
    // dependency-cruiser counts a folder's subfolders as part of it, so the rule after this one
    // covers a root folder and its own subfolders.
    {
      name: 'no-folder-cycle',
      comment: 'A cycle between two folders: one of them must stop importing the other.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      // node/ and storage/ root files (cli.ts, engine.ts) import their subfolders, so a subfolder importing
      // a root file would close a cycle: what subfolders share lives in node/core and storage/core.
      name: 'subfolder-imports-no-root-file',
      comment: 'A file in a subfolder of node/ or storage/ imports a file of that root folder, which imports its subfolders.',
      severity: 'error',
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
