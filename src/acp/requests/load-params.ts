import type * as acp from '@agentclientprotocol/sdk'
import type { ClientPrompt } from '../../agent/instructions/client-prompt.js'
import type { McpServerConfig } from '../../agent/mcp/server-config.js'
import { ProtocolError } from '../errors.js'
import { checkedDirectories } from './directories.js'
import { mcpServerConfigs } from './mcp-server-params.js'
import { assertWorkingDirectory } from './params.js'
import { assertSessionId } from './session-access.js'
import { clientSystemPrompt } from './system-prompt.js'

/** A `session/load` request's params as checked before anything is opened or replayed. */
export interface LoadRequest {
  readonly sessionId: string
  readonly cwd: string
  readonly servers: McpServerConfig[]
  readonly directories: string[] | undefined
  /** `_meta.dsh.afterSeq`: the last event the client has seen; 0 (replay everything) when absent. */
  readonly seen: number
  readonly systemPrompt: ClientPrompt | undefined
}

/**
 * Checks the params of a `session/load` (already valid by the schema) the way its handler does,
 * before anything of the session is read: the session id, the working directory, the MCP
 * servers, the additional directories, `_meta.dsh.afterSeq` and the system prompt. Throws the
 * -32602 (or -32002) the client is answered with. Also what the early load of a new process
 * checks before it sends anything (process/early-start/early-load.ts), so the two never differ.
 */
export async function checkedLoadRequest(params: acp.LoadSessionRequest): Promise<LoadRequest> {
  const method = 'session/load'
  assertSessionId(params.sessionId)
  assertWorkingDirectory(method, 'cwd', params.cwd)
  const servers = mcpServerConfigs(method, params.mcpServers)
  const directories = await checkedDirectories(method, params.additionalDirectories)
  const seen = afterSeqOf(params._meta)
  const systemPrompt = clientSystemPrompt(method, params)
  return { sessionId: params.sessionId, cwd: params.cwd, servers, directories, seen, systemPrompt }
}

function afterSeqOf(meta: unknown): number {
  if (typeof meta !== 'object' || meta === null || !('dsh' in meta)) return 0
  const dsh = meta.dsh
  if (typeof dsh !== 'object' || dsh === null || !('afterSeq' in dsh)) return 0
  const seq = dsh.afterSeq
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
    throw ProtocolError.invalidParams('session/load: _meta.dsh.afterSeq must be a non-negative integer')
  }
  return seq
}
