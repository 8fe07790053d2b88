import { describe, expect, it } from 'vitest'
import { Unanswered } from './unanswered.js'

describe('Unanswered', () => {
  it('counts a request until a response with its id goes out, in either shape', () => {
    const pending = new Unanswered()
    pending.add('7', 100)
    pending.add('"a\\"b"', 50)
    pending.add('7', 100)
    expect(pending.bytes).toBe(150)
    pending.answered('{"jsonrpc":"2.0","method":"session/update","params":{"id":7}}')
    pending.answered('{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{}}')
    expect(pending.bytes).toBe(150)
    pending.answered('{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}')
    expect(pending.bytes).toBe(50)
    pending.answered('{"jsonrpc":"2.0","id":"a\\"b","error":{"code":-32603,"message":"x"}}')
    expect(pending.bytes).toBe(0)
  })

  it('recognises a response whose members come in another order', () => {
    const pending = new Unanswered()
    pending.add('3', 10)
    pending.answered('{"jsonrpc":"2.0","id":3,"_meta":{},"result":null}')
    expect(pending.bytes).toBe(0)
  })
})
