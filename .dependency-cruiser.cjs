// The one-way layer rule of src/ (README "Architecture"), checked by `npm run lint:layers`.
//
//   lib  <-  session  <-  persistence
//                    <-  agent  <-  acp  ->  jsonrpc  ->  lib
//   remote  ->  lib     (ACP over HTTP/WebSocket: streams in, streams out; it knows no ACP method)
//   process, bin.ts, cli.ts, app.ts, index.ts: the composition root, may import everything
//   replay: a tool beside the server; it speaks the wire and the transcript format only
//
// Each layer rule is an allow-list: a module of the layer may import packages, node built-ins and
// the src/ folders named in `pathNot`, nothing else of ours. Type-only imports count: a type is a
// dependency too. Co-located tests (*.test.ts) are not cruised: a test may reach across layers.

/** Everything of ours except the listed folders of src/. */
const ourCodeExcept = (...folders) => ({
  path: '^src/',
  pathNot: folders.length === 0 ? [] : [`^src/(${folders.join('|')})/`],
})

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'lib-imports-nothing-of-ours',
      comment: 'src/lib/ holds leaf helpers: they import packages and each other, no other folder of src/.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: ourCodeExcept('lib'),
    },
    {
      name: 'session-imports-only-lib',
      comment:
        'src/session/ is the domain core (the event log, projections, the store port): it imports src/lib ' +
        'and packages only, never the agent, the protocol, persistence, the process or replay.',
      severity: 'error',
      from: { path: '^src/session/' },
      to: ourCodeExcept('session', 'lib'),
    },
    {
      name: 'persistence-imports-only-session-and-lib',
      comment:
        'src/persistence/ implements the session store port on disk: it may import src/session and src/lib, ' +
        'never the agent, the protocol or the process.',
      severity: 'error',
      from: { path: '^src/persistence/' },
      to: ourCodeExcept('persistence', 'session', 'lib'),
    },
    {
      name: 'agent-imports-only-session-and-lib',
      comment:
        'src/agent/ (turn, config, tools, providers, mcp, subagents) writes to sessions: it may import ' +
        'src/session and src/lib, never src/acp, src/jsonrpc, src/persistence, src/process or src/replay.',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: ourCodeExcept('agent', 'session', 'lib'),
    },
    {
      name: 'agent-tools-know-no-feature',
      comment:
        'src/agent/tools/ (the tool contract and the built-in tools) imports nothing else of the agent but ' +
        'src/agent/types.ts: a feature (questions, checkpoints, subagents) depends on the tools, not the ' +
        'other way round; the tool set is assembled in src/agent/builtin-tools.ts.',
      severity: 'error',
      from: { path: '^src/agent/tools/' },
      to: { path: '^src/agent/', pathNot: ['^src/agent/tools/', '^src/agent/types\\.ts$'] },
    },
    {
      name: 'jsonrpc-imports-only-lib',
      comment:
        'src/jsonrpc/ is JSON-RPC over NDJSON and knows no ACP method: it may import src/lib only, ' +
        'never src/acp or anything above it.',
      severity: 'error',
      from: { path: '^src/jsonrpc/' },
      to: ourCodeExcept('jsonrpc', 'lib'),
    },
    {
      name: 'acp-imports-agent-session-jsonrpc-lib',
      comment:
        'src/acp/ translates ACP requests into the agent and the session and back: it may import src/agent, ' +
        'src/session, src/jsonrpc and src/lib, never src/persistence, src/process or src/replay (the store ' +
        'and the process are wired in by the composition root).',
      severity: 'error',
      from: { path: '^src/acp/' },
      to: ourCodeExcept('acp', 'agent', 'session', 'jsonrpc', 'lib'),
    },
    {
      name: 'remote-imports-only-lib',
      comment:
        'src/remote/ carries a JSON-RPC message stream over HTTP and WebSocket (cursors, resumption, ' +
        'tokens, limits): it is handed a function that serves ACP on a pair of streams, and may import ' +
        'src/lib and packages only, never the agent, the session, the protocol engine or the process.',
      severity: 'error',
      from: { path: '^src/remote/' },
      to: ourCodeExcept('remote', 'lib'),
    },
    {
      name: 'replay-imports-only-wire-and-transcript',
      comment:
        'src/replay/ (record, replay, compare) drives an agent process from the outside: it may import ' +
        'src/jsonrpc (framing), src/lib and the transcript format (src/process/transcript.ts, which ' +
        'redacts MCP secrets itself); never the session, the agent, persistence or the rest of the server.',
      severity: 'error',
      from: { path: '^src/replay/' },
      to: {
        path: '^src/',
        pathNot: ['^src/(replay|jsonrpc|lib)/', '^src/process/transcript\\.ts$'],
      },
    },
    {
      name: 'no-circular',
      comment:
        'No import cycle inside src/ that runs at load time: module evaluation order must not matter. ' +
        'A cycle closed only by `import type` is erased at build and is reported by the next rule.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-circular-types',
      comment:
        'Cycles closed by a type-only import: harmless at run time, but two modules that name each ' +
        'other are one unit. Warned, not failed: they predate this rule (issue 21). The ones known are ' +
        'listed in .dependency-cruiser-known-violations.json and summed up in one line by ' +
        '`npm run lint:layers` (`-- --no-ignore-known` shows them); a new one is printed in full. ' +
        'After fixing one, `npm run lint:layers:baseline` rewrites the list.',
      severity: 'warn',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve is a typo or a missing dependency.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
}
