import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendTurn, startStore, tempDir } from '../support/session-store.js'

const schema = JSON.parse(readFileSync('schemas/session-file.schema.json', 'utf8'))

let store: ReturnType<typeof tempDir>
beforeAll(() => {
  store = tempDir()
})
afterAll(() => store.cleanup())

function validator() {
  const ajv = new Ajv2020.default({ strict: true, allErrors: true })
  addFormats.default(ajv)
  const validate = ajv.compile(schema)
  const header = ajv.compile({ $ref: `${schema.$id}#/$defs/header` })
  const event = ajv.compile({ $ref: `${schema.$id}#/$defs/event` })
  return { validate, header, event }
}

describe('schemas/session-file.schema.json', () => {
  it('validates every line of files the backend wrote: header on line 1, events after', async () => {
    const s = await startStore(store.dir)
    const root = s.sessions.create('schema_root', { meta: { cwd: '/s', title: 'Root' } })
    appendTurn(root, 'hello')
    root.append({ type: 'turn/start', data: { turn: 2 } })
    root.append({ type: 'user/message', data: { turn: 2, content: [{ type: 'text', text: 'use a tool' }] } })
    root.append({ type: 'step/start', data: { turn: 2, step: 1 } })
    root.append({
      type: 'tool/call',
      data: { turn: 2, step: 1, callId: 'c1', name: 'read', input: { p: 1 } },
    })
    root.append({
      type: 'tool/result',
      data: { turn: 2, step: 1, callId: 'c1', output: 'ok', isError: false },
    })
    root.append({ type: 'step/end', data: { turn: 2, step: 1 } })
    root.append({ type: 'turn/end', data: { turn: 2, reason: 'completed' } })
    root.append({ type: 'session/title', data: { title: 'Renamed' } })
    root.append({ type: 'metrics:sample', data: { ms: 3 } })
    const child = await s.sessions.forkDurable(root, 6, 'schema_child')
    child.append({ type: 'context/note', data: { text: 'child note' } })
    await s.stop()

    const { validate, header, event } = validator()
    const files = readdirSync(store.dir).filter((name) => name.endsWith('.jsonl'))
    expect(files.sort()).toEqual(['schema_child.jsonl', 'schema_root.jsonl'])
    for (const name of files) {
      const lines = readFileSync(join(store.dir, name), 'utf8').split('\n')
      expect(lines.pop()).toBe('')
      lines.forEach((line, index) => {
        const value = JSON.parse(line)
        expect(validate(value), `${name}:${index + 1} ${JSON.stringify(validate.errors)}`).toBe(true)
        const kind = index === 0 ? header : event
        expect(kind(value), `${name}:${index + 1} ${JSON.stringify(kind.errors)}`).toBe(true)
      })
    }
  })

  it('rejects lines that are not a header or an event', () => {
    const { validate, header, event } = validator()
    const good = { version: 1, id: 'a', createdAt: '2024-01-01T00:00:00.000Z', cwd: '/' }
    expect(header(good)).toBe(true)
    expect(header({ ...good, version: 2 })).toBe(false)
    expect(header({ ...good, id: '../x' })).toBe(false)
    expect(header({ ...good, parentSession: 'p' })).toBe(false)
    const note = { seq: 1, type: 'context/note', time: '2024-01-01T00:00:00.000Z', data: { text: 'x' } }
    expect(event(note)).toBe(true)
    expect(event({ ...note, seq: 0 })).toBe(false)
    expect(event({ ...note, data: {} })).toBe(false)
    expect(event({ ...note, type: 'nope' })).toBe(false)
    expect(validate({ hello: 1 })).toBe(false)
  })
})
