import { withTurnState } from '../attach/turn-state.js'
import { defineMethod } from '../method.js'
import { recordDirectories } from '../requests/directories.js'
import { checkedLoadRequest } from '../requests/load-params.js'
import { connectMcpServers } from '../requests/mcp-servers.js'
import { recordSystemPrompt } from '../requests/system-prompt.js'
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
 * it live. In a new process, a load that came right after `initialize` may have had the head of
 * its replay sent before the server was built (process/early-start/early-load.ts): the replay
 * sends what follows it, and fails with -32015 when the file's head is not the one sent.
 */
export const sessionLoadMethod = defineMethod({
  name: 'session/load',
  async handle(params, call) {
    const { servers, directories, seen, systemPrompt } = await checkedLoadRequest(params)
    // The first updates a new process sent before it was built (process/early-start/early-load.ts).
    const shown = call.takeEarlyReplay(params.sessionId)
    const session = await replayAndAttach(call, {
      method: 'session/load',
      sessionId: params.sessionId,
      cwd: params.cwd,
      seen,
      ...(shown && { shown }),
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
