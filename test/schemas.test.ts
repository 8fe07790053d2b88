import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PERMISSION_ALWAYS_EVENT } from '../src/agent/config/permissions.js'
import { AGENT_EVENT_TYPES } from '../src/agent/events.js'
import { MCP_CONNECTED_EVENT, MCP_FAILED_EVENT } from '../src/agent/mcp/session-mcp.js'
import { parseCli, usage } from '../src/process/cli-args.js'
import { parseTranscriptLine } from '../src/process/transcript.js'
import { SESSION_ID_PATTERN } from '../src/session/ids.js'
import { SUBAGENT_SPAWNED } from '../src/session/index.js'
import { CORE_EVENTS, EXTENSION_EVENTS } from '../src/session/log/event-definitions.js'
import * as fields from '../src/session/log/event-fields.js'
import { CLEAN_TURN_END_REASONS, CORE_EVENT_TYPES, EXTENSION_EVENT_TYPE } from '../src/session/log/events.js'
import { eventsSchema, sessionFileEventSchema } from '../src/session/log/events-schema.js'
import { assertEventShape } from '../src/session/log/validate-event.js'
import { appendAll, startStore } from './support/session-store.js'
import { SNAPSHOT_ROOT } from './support/snapshot-scenario.js'
import { publishedSchema, publishedSchemaErrors } from './support/snapshot-schemas.js'
import { readSnapshotStores } from './support/snapshot-wire.js'
import { validLogArbitrary } from './support/valid-log.js'

// biome-ignore lint/suspicious/noExplicitAny: schema documents are walked freely in these checks
type Json = Record<string, any>

const events = publishedSchema('events') as Json
const meta = publishedSchema('acp-meta') as Json
const config = publishedSchema('config') as Json

/** Every event line of every session file the snapshot scenarios left behind (real backend output). */
const storedEvents = readSnapshotStores().flatMap(({ scenario, file, lines }) =>
  lines.slice(1).map((event, i) => ({ where: `${scenario}/${file}:${i + 2}`, event: event as Json })),
)

describe('schemas/events.schema.json', () => {
  it('is what the event definitions generate (npm run generate), and so is session-file.schema.json', () => {
    expect(events).toEqual(eventsSchema())
    expect((publishedSchema('session-file') as Json).$defs.event).toEqual(sessionFileEventSchema())
  })

  it('lists exactly the core event types, the extension type pattern and every agent event', () => {
    expect(events.$defs.coreEventType.enum).toEqual(CORE_EVENT_TYPES)
    expect(events.$defs.extensionEventType.pattern).toBe(EXTENSION_EVENT_TYPE.source)
    expect(AGENT_EVENT_TYPES).toEqual(Object.keys(EXTENSION_EVENTS))
    expect(AGENT_EVENT_TYPES).toEqual(
      expect.arrayContaining([
        PERMISSION_ALWAYS_EVENT,
        MCP_CONNECTED_EVENT,
        MCP_FAILED_EVENT,
        SUBAGENT_SPAWNED,
      ]),
    )
    const described = [...CORE_EVENT_TYPES, ...AGENT_EVENT_TYPES]
    expect(Object.keys(events.$defs.data)).toEqual(described)
    for (const type of AGENT_EVENT_TYPES) expect(type).toMatch(EXTENSION_EVENT_TYPE)
    expect(events.$defs.turnEndReason.anyOf[0].enum).toEqual(
      expect.arrayContaining([...CLEAN_TURN_END_REASONS]),
    )
  })

  it('each data field check accepts exactly what its schema accepts', () => {
    const ajv = new Ajv2020({ strict: false })
    ajv.addSchema({ $id: 'shared', $defs: fields.SHARED_DEFS })
    const near = [
      ...[0, 1, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, '', 'x', true, null, {}, [], [''], [1]],
      ...[[{ type: 'text' }], [{ type: 1 }], [[]], [{ path: '/a' }], [{ path: '/a', line: -1 }]],
      ...[[{ path: '/a', line: 2 }], [{ path: 1 }], [{ type: 'diff' }], [{ type: 'other' }]],
      ...[
        { inputTokens: 1, outputTokens: 0 },
        { inputTokens: 1 },
        { inputTokens: 1, outputTokens: 2, reasoningTokens: -1 },
      ],
    ]
    const isField = (value: unknown): value is fields.Field<unknown> =>
      typeof value === 'object' && value !== null && 'check' in value
    const kinds = Object.entries(fields).flatMap(([name, value]) =>
      isField(value) ? [[name, value] as const] : [],
    )
    expect(kinds.length).toBeGreaterThan(10)
    for (const [name, field] of kinds) {
      const schema = JSON.parse(JSON.stringify(field.schema).replaceAll('"#/$defs/', '"shared#/$defs/'))
      const validate = ajv.compile(schema)
      const agrees = (value: unknown) =>
        expect(field.check(value), `${name} ${JSON.stringify(value)}`).toBe(validate(value))
      for (const value of near) agrees(value)
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          agrees(value)
        }),
        { numRuns: 200 },
      )
    }
  })

  it('has, for each core type, the required and optional data fields the store checks', () => {
    for (const type of CORE_EVENT_TYPES) {
      const data = events.$defs.data[type]
      const definition: { required: object; optional?: object } = CORE_EVENTS[type]
      const required = Object.keys(definition.required)
      expect(data.required, type).toEqual(required)
      for (const field of required) {
        expect(() => assertEventShape(type, {}), `${type} without ${field}`).toThrow()
      }
      const optional = Object.keys(data.properties).filter((field) => !required.includes(field))
      expect(optional, type).toEqual(Object.keys(definition.optional ?? {}))
    }
  })

  it('accepts every event of the session files real server runs wrote, covering every turn event type', () => {
    expect(storedEvents.length).toBeGreaterThan(50)
    for (const { where, event } of storedEvents)
      expect(publishedSchemaErrors('events', event), where).toEqual([])
    const types = new Set(storedEvents.map(({ event }) => event.type as string))
    // Plugin events (namespace:name, e.g. subagent:spawned) are data-free for this schema.
    expect([...types].filter((t) => !EXTENSION_EVENT_TYPE.test(t)).sort()).toEqual(
      // Not in any snapshot store: context/note (no method writes it) and session/directories (its
      // paths are real directories; test/e2e/directories.test.ts covers it).
      CORE_EVENT_TYPES.filter((t) => t !== 'context/note' && t !== 'session/directories').sort(),
    )
  })

  it('accepts every event of random valid logs the store accepted (standalone and plugin events too)', async () => {
    const store = await startStore()
    try {
      fc.assert(
        fc.property(validLogArbitrary(40), (inputs) => {
          const session = appendAll(store.sessions.create(), inputs)
          for (const event of session.events()) expect(publishedSchemaErrors('events', event)).toEqual([])
          store.sessions.delete(session.id).catch(() => undefined)
        }),
        { numRuns: 60 },
      )
    } finally {
      await store.stop()
    }
  })

  it('rejects an event without any required data field, as the store does', () => {
    // Core events: the store keeps an extension event's data as given (its readers check it).
    const core = storedEvents.filter(({ event }) => !EXTENSION_EVENT_TYPE.test(event.type as string))
    for (const { where, event } of core.slice(0, 40)) {
      for (const field of events.$defs.data[event.type].required as string[]) {
        const { [field]: _dropped, ...data } = event.data
        expect(publishedSchemaErrors('events', { ...event, data }), `${where} without ${field}`).not.toEqual(
          [],
        )
        expect(() => assertEventShape(event.type, data)).toThrow()
      }
    }
  })
})

describe('schemas/acp-meta.schema.json', () => {
  it('names sessions with the store id pattern', () => {
    expect(meta.$defs.sessionId.pattern).toBe(SESSION_ID_PATTERN.source)
  })

  it('accepts exactly the fork boundaries the store accepts (the rest is INVALID_BOUNDARY)', async () => {
    const store = await startStore()
    try {
      const source = store.sessions.create()
      appendAll(source, [
        { type: 'session/title', data: { title: 't' } },
        { type: 'context/note', data: { text: 'n' } },
      ])
      for (const boundary of [0, 1, 2, 3, -1, 1.5, '1', null, true, 2 ** 53]) {
        const schemaAccepts = publishedSchemaErrors('acp-meta', { boundary }, 'forkParams').length === 0
        let storeAccepts = true
        try {
          store.sessions.fork(source, boundary as number)
        } catch (error) {
          expect((error as { code?: string }).code).toBe('INVALID_BOUNDARY')
          storeAccepts = false
        }
        // A schema cannot know the log: a seq past its end (3, 2^53) is the store's to refuse.
        const pastTheEnd = Number.isInteger(boundary) && (boundary as number) > source.lastSeq
        expect(schemaAccepts, `boundary ${String(boundary)}`).toBe(storeAccepts || pastTheEnd)
      }
    } finally {
      await store.stop()
    }
  })
})

const OPTION_LINE = /^\s+(--[a-z-]+(?: [A-Z[\]:]+)?)/
/** The command-line forms the usage text documents: its options (with their argument name) and commands. */
function documentedForms(): string[] {
  const options = usage()
    .split('\n')
    .map((line) => line.replace(/^\s+-[a-z], /, '  '))
    .map((line) => OPTION_LINE.exec(line)?.[1])
    .filter((form): form is string => form !== undefined)
  return ['serve', 'sessions', 'config', ...options]
}

describe('schemas/config.schema.json', () => {
  const properties = config.properties as Json

  it('covers every command-line form the usage text documents, each once', () => {
    const forms = Object.values(properties).flatMap((p) => p['x-cli'] as string[])
    expect(forms.slice().sort()).toEqual(documentedForms().sort())
  })

  it('describes every parsed configuration: its properties are exactly what the CLI can set', () => {
    const everything = parseCli([
      ...['serve', '--store', '/tmp/store', '--model', 'openai', '--base-url', 'http://127.0.0.1:1/v1'],
      ...[
        '--model-name',
        'm,n',
        '--image-input',
        '--no-fork',
        '--transcript',
        '/tmp/t.jsonl',
        '--max-line-bytes',
        '4096',
      ],
      ...['--log-level', 'debug', '--fake-clock', '2026-01-01T00:00:00.000Z', '--id-prefix', 'ses_'],
      ...['--max-steps', '8', '--context-window', '65536', '--max-retries', '0', '--request-timeout', '60'],
      ...['--mcp-timeout-ms', '5000', '--compact-at', '0.7'],
      ...['--max-subagents', '2', '--subagent-max-steps', '5'],
      ...['--price-input', '0.27', '--price-cached-input', '0.07', '--price-output', '1.1'],
      ...['--price-currency', 'USD'],
      ...['--listen', '[::1]:0', '--tls-cert', '/tmp/c.pem', '--tls-key', '/tmp/k.pem', '--behind-tls-proxy'],
      ...['--allow-origin', 'https://a.example', '--allow-origin', 'https://b.example', '--rotate-token'],
      ...['--token-file', '/tmp/token', '--max-connections', '8', '--max-message-bytes', '65536'],
      ...['--max-buffered-bytes', '65536', '--max-output-stall-ms', '500', '--keepalive-ms', '100'],
      ...['--headers-timeout-ms', '500', '--retention-messages', '50', '--retention-seconds', '5'],
    ])
    expect(Object.keys(everything).sort()).toEqual(Object.keys(properties).sort())
    const configs = [
      everything,
      parseCli([]),
      parseCli(['--memory', '--model', 'script:/tmp/model.json']),
      parseCli(['--no-subagents']),
      parseCli(['--compact-at', 'off']),
      parseCli(['sessions', '--store', '/tmp/s']),
      parseCli(['--help']),
      parseCli(['--version']),
      parseCli(['serve', '--rotate-token']),
      parseCli(['serve', '--listen', '8765']),
    ]
    for (const parsed of configs)
      expect(publishedSchemaErrors('config', parsed), JSON.stringify(parsed)).toEqual([])
  })

  it('states the defaults the CLI applies', () => {
    const defaults = parseCli([]) as unknown as Json
    for (const [name, property] of Object.entries(properties)) {
      if ('default' in property) expect(defaults[name], name).toEqual(property.default)
    }
  })

  it('rejects what the CLI refuses', () => {
    expect(publishedSchemaErrors('config', { ...parseCli([]), logLevel: 'loud' })).not.toEqual([])
    expect(() => parseCli(['--log-level', 'loud'])).toThrow()
    expect(publishedSchemaErrors('config', { ...parseCli([]), idPrefix: 'a b' })).not.toEqual([])
    expect(() => parseCli(['--id-prefix', 'a b'])).toThrow()
    expect(publishedSchemaErrors('config', { ...parseCli([]), maxLineBytes: 10 })).not.toEqual([])
    expect(() => parseCli(['--max-line-bytes', '10'])).toThrow()
    expect(publishedSchemaErrors('config', { ...parseCli([]), subagents: { maxConcurrent: 0 } })).not.toEqual(
      [],
    )
    expect(() => parseCli(['--max-subagents', '0'])).toThrow()
    expect(() => parseCli(['--no-subagents', '--max-subagents', '2'])).toThrow()
    expect(() => parseCli(['--listen', '127.0.0.1:70000'])).toThrow('--listen must be [HOST:]PORT')
    expect(() => parseCli(['--max-connections', '8'])).toThrow('need --listen')
    expect(() => parseCli(['--listen', '0', '--tls-cert', '/tmp/c.pem'])).toThrow('go together')
  })
})

describe('schemas/transcript.schema.json', () => {
  const samples: { line: string; valid: boolean }[] = [
    { line: '{"dir":"in","msg":{"jsonrpc":"2.0","id":1,"method":"initialize"}}', valid: true },
    { line: '{"dir":"out","ms":12.5,"msg":null}', valid: true },
    { line: '{"dir":"in","ms":0,"raw":"not json"}', valid: true },
    { line: '{"dir":"out","rawBase64":"/wk="}', valid: true },
    { line: '{"dir":"in","msg":{"raw":"old form"}}', valid: true },
    { line: '{"dir":"up","msg":1}', valid: false },
    { line: '{"dir":"in"}', valid: false },
    { line: '{"dir":"in","msg":1,"raw":"x"}', valid: false },
    { line: '{"dir":"in","ms":-1,"msg":1}', valid: false },
    { line: '{"dir":"in","raw":1}', valid: false },
    { line: '{"dir":"in","msg":1,"extra":true}', valid: false },
  ]

  it('accepts exactly the lines the transcript reader accepts', () => {
    for (const { line, valid } of samples) {
      expect(publishedSchemaErrors('transcript', JSON.parse(line)).length === 0, line).toBe(valid)
      let parsed = true
      try {
        parseTranscriptLine(line, 1)
      } catch {
        parsed = false
      }
      expect(parsed, line).toBe(valid)
    }
  })

  it('accepts every line of every stored snapshot transcript', () => {
    for (const scenario of readdirSync(SNAPSHOT_ROOT)) {
      const text = readFileSync(join(SNAPSHOT_ROOT, scenario, 'transcript.jsonl'), 'utf8')
      for (const [index, line] of text.split('\n').entries()) {
        if (line === '') continue
        expect(publishedSchemaErrors('transcript', JSON.parse(line)), `${scenario}:${index + 1}`).toEqual([])
      }
    }
  })
})
