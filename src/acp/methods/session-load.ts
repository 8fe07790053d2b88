import { withTurnState } from '../attach/turn-state.js'
import { ProtocolError } from '../errors.js'
import { defineMethod } from '../method.js'
import { checkedDirectories, recordDirectories } from '../requests/directories.js'
import { connectMcpServers, mcpServerConfigs } from '../requests/mcp-servers.js'
import { assertWorkingDirectory } from '../requests/params.js'
import { assertSessionId } from '../requests/session-access.js'
import { clientSystemPrompt, recordSystemPrompt } from '../requests/system-prompt.js'
import { withWorkspaceTrust } from '../trust/trust-view.js'
import { sessionSetup } from '../views/config-options.js'
import { replayAndAttach } from '../views/replay/replay-attach.js'
import { announceLoadedSession } from '../views/session-announce.js'

/**
 * `session/load`: makes the session live and replays its whole history (the store's projection,
 * each update with `_meta.dsh.seq`, each turn's last with `_meta.dsh.turnEnd`: how it ended) as
 * `session/update` notifications, connects the request's MCP
 * servers, sends the command list (and a title from the header, which no event replays), then
 * answers: nothing of the session follows the answer (ACP). A stored
 * session is replayed while its file is read: each event is sent once it passed every check, and
 * the read waits while the client is slow to take the updates (the output holds about one read
 * chunk's updates at most). Should a later line turn out
 * corrupt, the load fails (-32012 naming file and line) after the updates before it were sent,
 * and the session is not loaded: the client drops what it was shown, as for any failed load. The
 * answer carries the session's `configOptions` and `modes` as its log left them. With
 * `_meta.dsh.afterSeq` N only the events after N are replayed. The connection is then attached
 * (see `SessionAudience`): whatever another client of this process makes the session do reaches
 * it live.
 */
/** `_meta.dsh.afterSeq`: the last event the client has seen; 0 (replay everything) when absent. */
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

export const sessionLoadMethod = defineMethod({
  name: 'session/load',
  async handle(params, call) {
    assertSessionId(params.sessionId)
    assertWorkingDirectory('session/load', 'cwd', params.cwd)
    const servers = mcpServerConfigs('session/load', params.mcpServers)
    const directories = await checkedDirectories('session/load', params.additionalDirectories)
    const seen = afterSeqOf(params._meta)
    const systemPrompt = clientSystemPrompt('session/load', params)
    const session = await replayAndAttach(call, {
      method: 'session/load',
      sessionId: params.sessionId,
      cwd: params.cwd,
      seen,
    })
    await recordDirectories(call, session, directories)
    await recordSystemPrompt(call, session, systemPrompt)
    const trust = await connectMcpServers(call, session, servers)
    await announceLoadedSession(call, session)
    const answer = withWorkspaceTrust(sessionSetup(call.agent, session), trust)
    // The replay marked how each ended turn ended: only a turn still going is said here.
    const turn = call.turnState(session)
    return turn.state === 'idle' ? answer : withTurnState(answer, turn)
  },
})
