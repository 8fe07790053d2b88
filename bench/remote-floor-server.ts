import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'

/**
 * `node remote-floor-server.js`: the transport floor of the remote bench. The same wire as
 * `dsh-acp serve --listen` (an `initialize` POST answered in its body with `Acp-Connection-Id`,
 * other POSTs answered 202 with the JSON-RPC answer on the one SSE stream; a WebSocket answering
 * frame for frame), but no ACP behind it: each request is answered at once with an empty
 * `session/list` result. What the bench's clients measure against it is what Node's HTTP and
 * `ws` cost on this machine, before any of ours. Prints its port on stdout.
 */
let stream: ServerResponse | undefined
let cursor = 0

let sockets = 0

const answer = (body: string) => {
  const { id } = JSON.parse(body) as { id?: unknown }
  return JSON.stringify({ jsonrpc: '2.0', id, result: { sessions: [] } })
}

const server = createServer((request, response) => {
  if (request.method === 'DELETE') return void response.writeHead(204).end()
  if (request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    response.flushHeaders()
    stream = response
    return
  }
  let body = ''
  request.setEncoding('utf8')
  request.on('data', (chunk: string) => {
    body += chunk
  })
  request.on('end', () => {
    if (request.headers['acp-connection-id'] === undefined) {
      response.writeHead(200, { 'content-type': 'application/json', 'acp-connection-id': 'floor' })
      return void response.end(answer(body))
    }
    response.writeHead(202).end()
    stream?.write(`id: ${++cursor}\ndata: ${answer(body)}\n\n`)
  })
})
server.on('connection', () => sockets++)
const webSockets = new WebSocketServer({ server, perMessageDeflate: false })
webSockets.on('connection', (socket) => socket.on('message', (data) => socket.send(answer(data.toString()))))
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`)
})
// How many TCP connections the clients opened (the bench's clients keep theirs alive).
process.on('SIGTERM', () => {
  process.stderr.write(`remote-floor-server: ${sockets} TCP connections accepted\n`)
  process.exit(0)
})
