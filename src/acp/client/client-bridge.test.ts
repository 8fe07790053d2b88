import { describe, expect, it } from 'vitest'
import type { PermissionRequest } from '../../agent/types.js'
import type { ClientState } from '../method.js'
import { type ClientRequestSender, createClientBridge, type PermissionTarget } from './client-bridge.js'
import { ClientResponseError } from './client-requests.js'

const EVERYTHING: ClientState = {
  protocolVersion: 1,
  capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
}

/** A client that answers each method from `answers` (absent: `{}`) and records what it was sent, as JSON. */
function editor(answers: Readonly<Record<string, unknown>> = {}) {
  const sent: string[] = []
  const send: ClientRequestSender = async (method, params) => {
    sent.push(`${method} ${JSON.stringify(params)}`)
    return method in answers ? answers[method] : {}
  }
  return { sent, send }
}

const REQUEST: PermissionRequest = {
  sessionId: 's1',
  toolCallId: 'call_1',
  title: 'Edit a.txt',
  kind: 'edit',
  rawInput: { path: 'a.txt' },
  locations: [{ path: '/w/a.txt' }],
}

const live = () => new AbortController().signal

async function permission(outcome: unknown, target?: PermissionTarget) {
  const client = editor({ 'session/request_permission': outcome })
  const bridge = createClientBridge(client.send, undefined, 's1', { permissionTarget: target })
  const answer = await bridge.requestPermission?.(REQUEST, live())
  return { answer, sent: client.sent }
}

describe('the client bridge', () => {
  it('offers fs and terminal only as the client advertised them; permission always', () => {
    const none = createClientBridge(editor().send, undefined, 's1')
    expect(Object.keys(none)).toEqual(['requestPermission'])
    const read = createClientBridge(
      editor().send,
      { protocolVersion: 1, capabilities: { fs: { readTextFile: true, writeTextFile: false } } },
      's1',
    )
    expect(Object.keys(read).sort()).toEqual(['readTextFile', 'requestPermission'])
    const all = createClientBridge(editor().send, EVERYTHING, 's1')
    expect(Object.keys(all).sort()).toEqual([
      'readTextFile',
      'requestPermission',
      'terminal',
      'writeTextFile',
    ])
  })

  it('reads and writes files through the editor, on its session', async () => {
    const client = editor({ 'fs/read_text_file': { content: 'hi\n' }, 'fs/write_text_file': null })
    const bridge = createClientBridge(client.send, EVERYTHING, 's1')
    expect(await bridge.readTextFile?.('/w/a', live())).toBe('hi\n')
    await expect(bridge.writeTextFile?.('/w/a', 'x', live())).resolves.toBeUndefined()
    expect(client.sent).toEqual([
      'fs/read_text_file {"sessionId":"s1","path":"/w/a"}',
      'fs/write_text_file {"sessionId":"s1","path":"/w/a","content":"x"}',
    ])
  })

  it('a read answered without content fails with a clear error', async () => {
    for (const answer of [null, {}, { content: 7 }]) {
      const bridge = createClientBridge(editor({ 'fs/read_text_file': answer }).send, EVERYTHING, 's1')
      await expect(bridge.readTextFile?.('/w/a', live())).rejects.toThrow(ClientResponseError)
    }
  })
})

describe('permission requests', () => {
  it('asks about the tool call on its session, offering the four options', async () => {
    const { sent } = await permission({ outcome: { outcome: 'selected', optionId: 'allow_once' } })
    expect(sent).toEqual([
      'session/request_permission ' +
        JSON.stringify({
          sessionId: 's1',
          toolCall: {
            toolCallId: 'call_1',
            title: 'Edit a.txt',
            kind: 'edit',
            status: 'pending',
            locations: [{ path: '/w/a.txt' }],
            rawInput: { path: 'a.txt' },
          },
          options: [
            { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
            { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
            { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
            { optionId: 'reject_always', name: 'Always reject', kind: 'reject_always' },
          ],
        }),
    ])
  })

  it('asks where the target says, about the tool call it gives', async () => {
    const target: PermissionTarget = (request) => ({
      sessionId: 'parent',
      toolCall: { toolCallId: 'call_p', title: `Sub: ${request.title}`, kind: 'think', _meta: { x: 1 } },
    })
    const { sent } = await permission({ outcome: { outcome: 'cancelled' } }, target)
    expect(sent).toEqual([
      expect.stringMatching(
        /^session\/request_permission \{"sessionId":"parent","toolCall":\{"toolCallId":"call_p","title":"Sub: Edit a.txt","kind":"think","_meta":\{"x":1\}\},"options":/,
      ),
    ])
  })

  it.each([
    [{ outcome: { outcome: 'selected', optionId: 'allow_once' } }, 'allow_once'],
    [{ outcome: { outcome: 'selected', optionId: 'allow_always' } }, 'allow_always'],
    [{ outcome: { outcome: 'selected', optionId: 'reject_once' } }, 'reject_once'],
    [{ outcome: { outcome: 'selected', optionId: 'reject_always' } }, 'reject_always'],
    [{ outcome: { outcome: 'selected', optionId: 'none' } }, 'reject_once'],
    [{ outcome: { outcome: 'cancelled' }, _meta: { why: 'closed' } }, 'cancelled'],
  ])('answered %j: %s', async (outcome, expected) => {
    expect((await permission(outcome)).answer).toBe(expected)
  })

  it.each([
    [null, 'outcome is required'],
    [
      { outcome: { outcome: 'dismissed' } },
      'outcome.outcome "dismissed" is not one of the types ACP defines here',
    ],
    [{ outcome: { outcome: 'selected' } }, 'outcome.optionId is required'],
    [{ outcome: { outcome: 'selected', optionId: 3 } }, 'outcome.optionId must be of type string'],
  ])('answered %j: fails, %s', async (outcome, problem) => {
    await expect(permission(outcome)).rejects.toThrow(
      `the editor answered session/request_permission with an invalid response: ${problem}`,
    )
  })
})

describe('the terminal bridge', () => {
  const command = { command: '/bin/sh', args: ['-c', 'ls'], cwd: '/w', outputByteLimit: 100 }

  it('creates, waits, reads, kills and releases on its session', async () => {
    const client = editor({
      'terminal/create': { terminalId: 't1' },
      'terminal/wait_for_exit': { exitCode: 0 },
      'terminal/output': { output: 'ok\n', truncated: false },
      'terminal/kill': null,
    })
    const terminal = createClientBridge(client.send, EVERYTHING, 's1').terminal
    expect(await terminal?.create(command, live())).toBe('t1')
    expect(await terminal?.waitForExit('t1', live())).toEqual({ exitCode: 0, signal: null })
    expect(await terminal?.output('t1', live())).toEqual({
      output: 'ok\n',
      truncated: false,
      exitStatus: null,
    })
    await terminal?.kill('t1')
    await terminal?.release('t1')
    expect(client.sent).toEqual([
      'terminal/create {"sessionId":"s1","command":"/bin/sh","args":["-c","ls"],"cwd":"/w","outputByteLimit":100}',
      'terminal/wait_for_exit {"sessionId":"s1","terminalId":"t1"}',
      'terminal/output {"sessionId":"s1","terminalId":"t1"}',
      'terminal/kill {"sessionId":"s1","terminalId":"t1"}',
      'terminal/release {"sessionId":"s1","terminalId":"t1"}',
    ])
  })

  it('passes the exit status of terminal/output on', async () => {
    const exitStatus = { exitCode: null, signal: 'SIGKILL' }
    const client = editor({ 'terminal/output': { output: '', truncated: true, exitStatus } })
    const terminal = createClientBridge(client.send, EVERYTHING, 's1').terminal
    expect(await terminal?.output('t1', live())).toEqual({ output: '', truncated: true, exitStatus })
  })

  it.each([
    ['terminal/create', { terminalId: '' }, 'terminalId must not be empty'],
    ['terminal/create', {}, 'terminalId is required'],
    ['terminal/output', { truncated: false }, 'output is required'],
    ['terminal/output', { output: '', truncated: false, exitStatus: 0 }, 'exitStatus must be of type'],
    ['terminal/wait_for_exit', { exitCode: 1.5 }, 'exitCode must be of type integer,null'],
  ])('%s answered %j: fails, %s', async (method, answer, problem) => {
    const terminal = createClientBridge(editor({ [method]: answer }).send, EVERYTHING, 's1').terminal
    const call =
      method === 'terminal/create'
        ? terminal?.create(command, live())
        : method === 'terminal/output'
          ? terminal?.output('t1', live())
          : terminal?.waitForExit('t1', live())
    await expect(call).rejects.toThrow(`the editor answered ${method} with an invalid response: ${problem}`)
  })
})
