import { sep } from 'node:path'
import {
  type TrustDecision,
  TrustRefusal,
  type WorkspaceTrust,
  type WorkspaceTrustReport,
} from '../../acp/trust/trust-wire.js'
import type { ConfigProblem } from '../config/problems.js'
import { readTrust, type TrustEntries, writeDecision } from './trust-store.js'
import { findProjectFile, type Workspace, workspaceOf } from './workspace.js'

/** What a session's folder may use of its project, and what it may not. */
export interface ProjectAccess {
  /** The project file to use (its workspace is trusted for it); absent: none. */
  readonly file?: string
  /** A project file found and not used because the workspace is not trusted. */
  readonly ignored?: string
  /** Project files refused whatever the trust (symlinks out, directories others write), and trust.json's. */
  readonly problems: readonly ConfigProblem[]
}

/** The process's workspace trust, plus what the set-up needs: the project file a session may use. */
export interface ProcessTrust extends WorkspaceTrust {
  access(cwd: string, sessionId?: string): ProjectAccess
}

/**
 * Workspace trust kept in `file` (`trust.json`, read again at each question, so a decision taken
 * from a terminal applies at once) and, for session-only trust, in this process's memory. On the
 * way up from a folder to its repository root, the highest trusted directory below the closest
 * decline (none: the root) is where trust reaches: project files above it stay ignored (a trusted
 * working directory does not trust the rest of its repository), and a decline closer than any
 * trust leaves the folder untrusted.
 */
export function createWorkspaceTrust(file: string, home?: string): ProcessTrust {
  /** Session id to the real cwd it was trusted in, for this process's life (it is never written). */
  const sessions = new Map<string, string>()

  /** The directory whose project files are used, and how it is trusted; undefined: none. */
  function trustedRoot(
    workspace: Workspace,
    entries: TrustEntries,
    sessionId: string | undefined,
  ): { readonly root: string; readonly status: 'trusted' | 'session' } | undefined {
    let root: string | undefined
    for (const dir of chainUp(workspace)) {
      const decision = entries.get(dir)?.decision
      if (decision === 'declined') break
      if (decision === 'trusted') root = dir
    }
    if (root !== undefined) return { root, status: 'trusted' }
    if (sessionId !== undefined && sessions.get(sessionId) === workspace.cwd)
      return { root: workspace.repoRoot ?? workspace.cwd, status: 'session' }
    return undefined
  }

  function look(cwd: string, sessionId: string | undefined) {
    const workspace = workspaceOf(cwd, home)
    const { entries, problems: storeProblems } = readTrust(file)
    const lookup = findProjectFile(workspace)
    const trusted = trustedRoot(workspace, entries, sessionId)
    const found = lookup.found
    const usable = found !== undefined && trusted !== undefined && within(found.dir, trusted.root)
    const decided = chainUp(workspace).some((dir) => entries.has(dir))
    return {
      workspace,
      trusted,
      decided,
      access: {
        ...(usable && { file: found.file }),
        ...(found !== undefined && !usable && { ignored: found.file }),
        problems: [...storeProblems, ...lookup.problems],
      } satisfies ProjectAccess,
    }
  }

  function report(cwd: string, sessionId?: string): WorkspaceTrustReport | undefined {
    const seen = look(cwd, sessionId)
    if (seen.access.file === undefined && seen.access.ignored === undefined && !seen.decided) return undefined
    return reportOf(seen.workspace, seen.trusted?.status ?? 'untrusted', seen.access)
  }

  return {
    access: (cwd, sessionId) => look(cwd, sessionId).access,
    report,
    apply(cwd: string, decision: TrustDecision, sessionId?: string): WorkspaceTrustReport {
      const workspace = workspaceOf(cwd, home)
      if (!decisionsFor(workspace).includes(decision))
        throw new TrustRefusal(`${decision} is not available for ${workspace.cwd}: it is in no repository`)
      const at = new Date().toISOString()
      if (decision === 'trust_session') {
        if (sessionId === undefined) throw new TrustRefusal('trust_session needs the sessionId it applies to')
        sessions.set(sessionId, workspace.cwd)
      } else if (decision === 'decline') {
        if (sessionId !== undefined) sessions.delete(sessionId)
        writeDecision(file, workspace.cwd, { decision: 'declined', scope: 'cwd', at })
      } else {
        const repo = decision === 'trust_repo'
        const path = repo ? (workspace.repoRoot as string) : workspace.cwd
        writeDecision(file, path, { decision: 'trusted', scope: repo ? 'repo' : 'cwd', at })
      }
      const seen = look(cwd, sessionId)
      return reportOf(workspace, seen.trusted?.status ?? 'untrusted', seen.access)
    },
  }
}

function reportOf(
  workspace: Workspace,
  status: WorkspaceTrustReport['status'],
  access: ProjectAccess,
): WorkspaceTrustReport {
  return {
    status,
    details: {
      cwd: workspace.cwd,
      ...(workspace.repoRoot !== undefined && { repoRoot: workspace.repoRoot }),
      ignoredPaths: access.ignored === undefined ? [] : [access.ignored],
      availableDecisions: decisionsFor(workspace),
    },
  }
}

function decisionsFor(workspace: Workspace): TrustDecision[] {
  return workspace.repoRoot === undefined
    ? ['trust_cwd', 'trust_session', 'decline']
    : ['trust_repo', 'trust_cwd', 'trust_session', 'decline']
}

/** The directories from the workspace's cwd up to its repository root (cwd alone outside one). */
function chainUp(workspace: Workspace): readonly string[] {
  return workspace.repoRoot === undefined ? [workspace.cwd] : workspace.projectDirs
}

/** `dir` is `root` or inside it. */
function within(dir: string, root: string): boolean {
  return dir === root || dir.startsWith(root.endsWith(sep) ? root : root + sep)
}
