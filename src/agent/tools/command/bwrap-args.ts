import { isWithin } from '../../../lib/paths.js'

/** What one sandboxed command may see and change. All paths absolute and real (no symlinks). */
export interface Confinement {
  /** Where the command starts. */
  readonly cwd: string
  /** The only places it may write, besides its private /tmp: the session's cwd and additional directories. */
  readonly writable: readonly string[]
  /** Existing paths it must not see: a directory shows as empty, a file as empty. */
  readonly hidden: readonly { readonly path: string; readonly directory: boolean }[]
  /** False: a network namespace of its own (only a loopback interface). */
  readonly network: boolean
}

/**
 * The bubblewrap arguments (before `--` and the command) for a {@link Confinement}: the whole
 * filesystem read-only, a fresh /dev, /proc of its own PID namespace, a private tmpfs /tmp, the
 * writable roots bound read-write, the hidden paths covered, no capabilities (a root agent's command
 * cannot remount), a session of its own (no terminal injection), and the whole tree killed when
 * bubblewrap or the agent dies. Mounts apply in order: a hidden path inside a writable root is
 * covered after the root is bound, a writable root inside a hidden path is bound after it is covered.
 */
export function bwrapArgs(confinement: Confinement): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(confinement.network ? [] : ['--unshare-net']),
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
  ]
  const insideRoot = (p: string) => confinement.writable.some((root) => isWithin(root, p))
  const cover = (hidden: Confinement['hidden'][number]) =>
    hidden.directory ? ['--tmpfs', hidden.path] : ['--ro-bind', '/dev/null', hidden.path]
  for (const hidden of confinement.hidden) if (!insideRoot(hidden.path)) args.push(...cover(hidden))
  for (const root of confinement.writable) args.push('--bind', root, root)
  for (const hidden of confinement.hidden) if (insideRoot(hidden.path)) args.push(...cover(hidden))
  args.push('--chdir', confinement.cwd)
  return args
}
