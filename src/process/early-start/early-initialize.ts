import { isUtf8 } from 'node:buffer'
import type * as acp from '@agentclientprotocol/sdk'
import type { RequestMessage } from 'vscode-jsonrpc'
import { answerInitialize, type InitializeOffer } from '../../acp/initialize/initialize-answer.js'
import type { ClientState } from '../../acp/method.js'
import { InitializeRequest } from '../../acp/schema/acp-initialize.gen.js'
import { chosenVersion } from '../../acp/v2/version-choice.js'
import { classify } from '../../jsonrpc/envelope.js'
import type { WireId } from '../../jsonrpc/index.js'

export interface EarlyAnswer {
  /** The response line, without its `\n`. */
  readonly response: string
  /** What the connection must know of the client, as the `initialize` method would record it. */
  readonly client: ClientState
}

/**
 * Answers `line` (the first input line, without its `\n`) when it is a well-formed `initialize`
 * request whose params pass the official schema: the same response the built server would write,
 * so it can be written while the server is still being built. Anything else (another method, a
 * notification, bad JSON, bad params, a `\r`) gives undefined: the connection then reads the line
 * itself and answers it as always.
 */
export function earlyInitialize(
  line: Buffer,
  offer: InitializeOffer,
  pinned?: number,
): EarlyAnswer | undefined {
  const message = requestOfLine(line)
  if (message?.method !== 'initialize') return undefined
  const params = message.params === undefined ? {} : message.params
  if (!InitializeRequest(params)) return undefined
  const request = params as acp.InitializeRequest
  const version = chosenVersion(request.protocolVersion, pinned)
  if (version === undefined) return undefined // refused: the connection answers it with its error
  const { client, result } = answerInitialize(request, offer, version)
  return { response: JSON.stringify({ jsonrpc: '2.0', id: message.id, result }), client }
}

/**
 * The request an input line (without its `\n`) holds when it is one well-formed JSON-RPC request
 * the connection would read as such; undefined for anything else (a notification, a batch, bad
 * JSON or UTF-8, a `\r` the connection would refuse), which the connection reads itself.
 */
export function requestOfLine(line: Buffer): (RequestMessage & { id: WireId }) | undefined {
  if (line.length === 0 || line[line.length - 1] === 0x0d || !isUtf8(line)) return undefined
  let value: unknown
  try {
    value = JSON.parse(line.toString('utf8'))
  } catch {
    return undefined
  }
  const envelope = classify(value)
  return envelope.kind === 'request' ? envelope.message : undefined
}
