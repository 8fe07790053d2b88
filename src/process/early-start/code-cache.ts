import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import Module, { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { constants, Script } from 'node:vm'

declare global {
  namespace NodeJS {
    interface Module {
      /** Node's CommonJS loader step that compiles and runs one file's text (stable since Node 0.x). */
      _compile(content: string, filename: string): unknown
    }
  }
}

/** Where the bundled CLI's chunks are and where their compiled code is kept. */
export interface CodeCacheOptions {
  /** The folder of the chunks: a file elsewhere is compiled as Node always does. */
  readonly chunks: string
  /** The folder of this V8's caches, one `<chunk>.v8` per chunk. */
  readonly cache: string
  /** The build's warm-up run: when the process exits, write the code of every chunk it compiled. */
  readonly write: boolean
}

/** How each chunk compiled so far was compiled (live counts). */
export interface CodeCacheUse {
  /** From the cache V8 took. */
  fromCache: number
  /** From its text: V8 refused the cache (another version, other flags, not a cache). */
  refused: number
  /** From its text: no cache was found. */
  uncached: number
}

interface Compiled {
  readonly script: Script
  readonly file: string
}

/**
 * V8's code cache for the CLI's own chunks. Node 20 compiles each file it loads from its text at
 * every start (its module compile cache is Node 22's), about a third of the time from the
 * `initialize` answer to a served `session/load`. The build runs the built server through a short
 * session with `write` set, and each chunk's code, the functions that ran included, is written
 * beside the bundle; a start hands each chunk's cache to V8 with its text.
 *
 * A chunk's file name holds a hash of its content, so a cache never meets another text. V8 checks
 * its version and flags and refuses any other cache (`cachedDataRejected`): the chunk is then
 * compiled from its text as without one, so a missing, stale or foreign cache costs one file read.
 */
export function useCodeCache(options: CodeCacheOptions): CodeCacheUse {
  const compile = Module.prototype._compile
  const compiled: Compiled[] = []
  const use: CodeCacheUse = { fromCache: 0, refused: 0, uncached: 0 }
  Module.prototype._compile = function compileChunk(this: Module, content: string, filename: string) {
    if (dirname(filename) !== options.chunks) return compile.call(this, content, filename)
    const file = join(options.cache, `${basename(filename)}.v8`)
    const cachedData = readCache(file)
    const script = new Script(Module.wrap(withoutHashbang(content)), {
      filename,
      ...(cachedData !== undefined && { cachedData }),
      importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    })
    if (cachedData === undefined) use.uncached++
    else if (script.cachedDataRejected === true) use.refused++
    else use.fromCache++
    if (options.write) compiled.push({ script, file })
    const wrapper: unknown = script.runInThisContext()
    if (typeof wrapper !== 'function') throw new Error(`${filename} did not compile to a module function`)
    const require = createRequire(filename)
    return wrapper.call(this.exports, this.exports, require, this, filename, dirname(filename))
  }
  if (options.write) process.on('exit', () => writeCaches(compiled, options.cache))
  return use
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file)
  } catch {
    return undefined
  }
}

/** A `#!` first line is a comment to Node's loader, not to V8: keep the line count, drop the text. */
function withoutHashbang(content: string): string {
  return content.startsWith('#!') ? `//${content}` : content
}

/** Each cache through a temporary file and a rename, so a reader sees a whole cache or none. */
function writeCaches(compiled: readonly Compiled[], cache: string): void {
  mkdirSync(cache, { recursive: true })
  for (const { script, file } of compiled) {
    const temporary = `${file}.${process.pid}.tmp`
    writeFileSync(temporary, script.createCachedData())
    renameSync(temporary, file)
  }
}
