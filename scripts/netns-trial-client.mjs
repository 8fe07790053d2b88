// An editor-style client for scripts/netns-trial.sh: the SDK's own HTTP or WebSocket client
// against `dsh-acp serve` at URL (token in DSH_ACP_TOKEN). It prompts, kills its connection in the
// middle of the turn (sockets destroyed, no goodbye), connects again, loads the session after the
// last event it saw whole (`_meta.dsh.afterSeq`), is told where the turn stands, and checks that
// the words it got before and after the cut are the turn's words, each once, in order.
// Usage: node scripts/netns-trial-client.mjs URL
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client'
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { WebSocket } from 'ws'

const url = process.argv[2]
const headers = { Authorization: `Bearer ${process.env.DSH_ACP_TOKEN}` }
const seqOf = (u) => u._meta?.dsh?.seq ?? 0
const isChunk = (u) => u.update.sessionUpdate === 'agent_message_chunk'
const log = (text) => console.log(`[${url.split(':')[0]}] ${text}`)

function connect() {
  const sockets = new Set()
  const fetches = new Set()
  class KeptWebSocket extends WebSocket {
    constructor(...args) {
      super(...args)
      sockets.add(this)
    }
  }
  const fetchKept = (input, init) => {
    const controller = new AbortController()
    fetches.add(controller)
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal
    return fetch(input, { ...init, signal })
  }
  const stream = url.startsWith('ws')
    ? createWebSocketStream(url, { WebSocket: KeptWebSocket, headers })
    : createHttpStream(url, { headers, fetch: fetchKept })
  const updates = []
  const app = acp.client({ name: 'netns-trial' })
  app.onNotification('session/update', ({ params }) => updates.push(params))
  const connection = app.connect(stream)
  const drop = () => {
    for (const socket of sockets) socket.terminate()
    for (const controller of fetches) controller.abort()
  }
  return { agent: connection.agent, updates, drop, close: () => connection.close() }
}

const until = async (done) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5))
}

const a = connect()
await a.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} })
const { sessionId } = await a.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] })
log(`session ${sessionId}`)
a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] }).catch(() => {})
await until(() => a.updates.filter(isChunk).length >= 10)
a.drop()
const last = a.updates.at(-1)
const seen = isChunk(last) ? seqOf(last) - 1 : seqOf(last)
const before = a.updates.filter((u) => isChunk(u) && seqOf(u) <= seen)
log(`connection killed after ${a.updates.filter(isChunk).length} chunks; seen whole up to seq ${seen}`)

const b = connect()
await b.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} })
const loaded = await b.agent.request('session/load', {
  sessionId,
  cwd: process.cwd(),
  mcpServers: [],
  _meta: { dsh: { afterSeq: seen } },
})
log(`reconnected; acp/turnState: ${JSON.stringify(loaded._meta?.['acp/turnState'] ?? { state: 'idle' })}`)
await until(() => b.updates.some((u) => u._meta?.dsh?.turnEnd !== undefined))
const after = b.updates.filter((u) => isChunk(u) && seqOf(u) > seen)
const text = [...before, ...after].map((u) => u.update.content.text).join('')
const words = text.trim().split(' ')
const expected = Array.from({ length: words.length }, (_, i) => words[0].replace(/w\d+$/, `w${i}`))
const whole = words.length === 40 && words.every((w, i) => w === expected[i])
log(
  `turn ended; ${before.length} chunks before the cut + ${after.length} after = ${words.length} words, ${whole ? 'each once, in order' : 'NOT the turn'}`,
)
b.close()
process.exit(whole ? 0 : 1)
