import { parseArgs } from 'node:util'
import type { CopyStore } from '../../persistence/copy/copy-store.js'
import {
  BLOB_GRACE_MS,
  BlobCollector,
  BlobDirectory,
  isPostgresUrl,
  StorePaths,
} from '../../persistence/index.js'
import { STORE_PARSE_OPTIONS, STORE_USAGE } from './store-options.js'

/** Where `dsh-acp store` writes: its report to `out`, problems to `err`. */
export interface StoreIo {
  out(text: string): void
  err(text: string): void
}

const terminal: StoreIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
}

/** `dsh-acp store copy FROM TO | gc STORE`: the exit code (0 done, 1 failed or conflicts, 2 bad arguments). */
export async function runStoreCommand(args: readonly string[], io: StoreIo = terminal): Promise<number> {
  let parsed: ReturnType<typeof readArgs>
  try {
    parsed = readArgs(args)
  } catch (error) {
    io.err(`dsh-acp store: ${(error as Error).message}\n\n${STORE_USAGE}`)
    return 2
  }
  if (parsed === 'help') {
    io.out(STORE_USAGE)
    return 0
  }
  try {
    if (parsed.command === 'copy') return await copyCommand(parsed.stores[0], parsed.stores[1], io)
    return await gcCommand(parsed.stores[0], parsed.graceMs, io)
  } catch (error) {
    io.err(`dsh-acp store ${parsed.command}: ${(error as Error).message}`)
    return 1
  }
}

type StoreArgs = { command: 'copy'; stores: [string, string] } | { command: 'gc'; stores: [string] }

function readArgs(args: readonly string[]): 'help' | (StoreArgs & { graceMs: number }) {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: STORE_PARSE_OPTIONS,
  })
  if (values.help) return 'help'
  const [command, ...stores] = positionals
  const raw = values['grace-ms']
  const graceMs = raw === undefined ? BLOB_GRACE_MS : Number(raw)
  if (!Number.isSafeInteger(graceMs) || graceMs < 0)
    throw new TypeError('--grace-ms must be an integer of at least 0')
  if (command === 'copy') {
    const [from, to, extra] = stores
    if (from === undefined || to === undefined || extra !== undefined)
      throw new TypeError('store copy takes two stores: FROM TO')
    return { command, stores: [from, to], graceMs }
  }
  if (command === 'gc') {
    const [store, extra] = stores
    if (store === undefined || extra !== undefined) throw new TypeError('store gc takes one store')
    return { command, stores: [store], graceMs }
  }
  throw new TypeError(
    command === undefined
      ? 'store needs a command: copy or gc'
      : `unknown store command ${JSON.stringify(command)}`,
  )
}

async function openStore(location: string, role: 'from' | 'to'): Promise<CopyStore> {
  if (isPostgresUrl(location)) {
    const { PgCopyStore } = await import('../../persistence/copy/pg-copy-store.js')
    return PgCopyStore.open(location)
  }
  const { JsonlCopyStore } = await import('../../persistence/copy/jsonl-copy-store.js')
  return JsonlCopyStore.open(location, role)
}

async function copyCommand(fromLocation: string, toLocation: string, io: StoreIo): Promise<number> {
  const from = await openStore(fromLocation, 'from')
  let to: CopyStore | undefined
  try {
    to = await openStore(toLocation, 'to')
    if (to.name === from.name) throw new Error(`FROM and TO are the same store (${from.name})`)
    const { copyStores } = await import('../../persistence/copy/copy-stores.js')
    io.out(`copying ${from.name} -> ${to.name}`)
    const outcome = await copyStores(from, to, io.out)
    io.out(
      `${outcome.copied} copied (${outcome.events} events, ${outcome.blobsCopied} blobs), ${outcome.present} already there, ${outcome.problems.length} failed${outcome.blobsMissing > 0 ? `, ${outcome.blobsMissing} blobs missing from the source` : ''}`,
    )
    for (const problem of outcome.problems) io.err(`dsh-acp store copy: ${problem}`)
    return outcome.problems.length === 0 ? 0 : 1
  } finally {
    await to?.close()
    await from.close()
  }
}

async function gcCommand(location: string, graceMs: number, io: StoreIo): Promise<number> {
  if (isPostgresUrl(location)) {
    const { PgCopyStore } = await import('../../persistence/copy/pg-copy-store.js')
    const store = await PgCopyStore.open(location)
    try {
      const done = await store.collectBlobs(graceMs)
      io.out(`${done.removed} blobs removed, ${done.kept} kept (${store.name})`)
    } finally {
      await store.close()
    }
    return 0
  }
  const paths = new StorePaths(location)
  const collector = new BlobCollector(new BlobDirectory(paths.blobDir), paths.dir, graceMs, io.err)
  const done = await collector.soon()
  if (!done) return 1
  io.out(`${done.removed} blobs removed (${done.removedBytes} bytes), ${done.kept} kept (${paths.dir})`)
  return 0
}
