import { describe, expect, it } from 'vitest'
import { ResponseError } from 'vscode-jsonrpc'
import { ErrorCode, ProtocolError } from '../errors.js'
import { inClientWords, readV2Request } from './reader.js'

describe('a v2 route fails in the words of the method the client called', () => {
  const replay = readV2Request('session/resume', { sessionId: 's', cwd: '/p', replayFrom: { type: 'start' } })

  it('names session/resume where the served session/load named itself, keeping code and data', () => {
    expect(replay.method).toBe('session/load')
    const error = replay.failure(
      ProtocolError.invalidParams('session/load: cwd must be absolute', { field: 'cwd' }),
    )
    expect(error).toBeInstanceOf(ResponseError)
    expect(error).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: 'session/resume: cwd must be absolute',
      data: { field: 'cwd' },
    })
  })

  it('leaves other errors, and messages that do not start with the served name, as they are', () => {
    const other = new ProtocolError(ErrorCode.ResourceNotFound, 'session s not found')
    expect(replay.failure(other)).toBe(other)
    const plain = new Error('session/load: not a response error')
    expect(replay.failure(plain)).toBe(plain)
    const resume = readV2Request('session/resume', { sessionId: 's', cwd: '/p' })
    const own = ProtocolError.invalidParams('session/resume: bad')
    expect(resume.failure(own)).toBe(own)
  })

  it('renames the failure of a call that settles later', async () => {
    const login = readV2Request('auth/login', { methodId: 'x' })
    const failed = Promise.reject(new ProtocolError(ErrorCode.AuthRequired, 'authenticate: no key'))
    await expect(inClientWords(failed, login)).rejects.toMatchObject({ message: 'auth/login: no key' })
  })
})
