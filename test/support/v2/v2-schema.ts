import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

const SCHEMA_DIR = resolve(import.meta.dirname, '../../../node_modules/@agentclientprotocol/sdk/schema/v2')
type Defs = Record<string, { 'x-method'?: string; 'x-side'?: string }>
const load = (file: string) => JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8'))
const stable = load('schema.json')
const unstable = load('schema.unstable.json')
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(stable, 'stable')
ajv.addSchema(unstable, 'unstable')

/**
 * The definitions that check a method's params (`Request`/`Notification`) or result (`Response`):
 * in the SDK's stable v2 schema where the method is stable, and in its unstable one (which every
 * method is in, with the unstable fields); empty for a method neither has.
 */
function definitions(method: string, part: 'params' | 'result'): { schema: string; name: string }[] {
  const found: { schema: string; name: string }[] = []
  for (const [schema, doc] of [
    ['stable', stable],
    ['unstable', unstable],
  ] as const) {
    const defs = doc.$defs as Defs
    const names = Object.keys(defs).filter((name) => defs[name]?.['x-method'] === method)
    const name = names.find((n) => (part === 'result' ? n.endsWith('Response') : !n.endsWith('Response')))
    if (name) found.push({ schema, name })
  }
  return found
}

const compiled = new Map<string, ValidateFunction>()
function validator(schema: string, name: string): ValidateFunction {
  const key = `${schema}#/$defs/${name}`
  let check = compiled.get(key)
  if (!check) {
    check = ajv.getSchema(key)
    if (!check) throw new Error(`no ${key}`)
    compiled.set(key, check)
  }
  return check
}

/** The problems of a method's params or result against each v2 schema that has the method. */
export function checkV2(method: string, part: 'params' | 'result', value: unknown): string[] {
  const where = definitions(method, part)
  if (where.length === 0) return [`${method} is in no v2 schema`]
  return where.flatMap(({ schema, name }) => {
    const check = validator(schema, name)
    if (check(value)) return []
    return (check.errors ?? []).map((e) => `${schema} ${name}${e.instancePath} ${e.message}`)
  })
}

/**
 * Checks every line an agent writes on a v2 connection: requests and notifications against their
 * method's params, responses against the method of the request they answer (an error response
 * against nothing: its shape is JSON-RPC's). `problems` collects every violation.
 */
export class V2WireAudit {
  readonly lines: { dir: 'in' | 'out'; message: Record<string, any> }[] = []
  readonly problems: string[] = []
  private readonly asked = new Map<string, string>()

  record(dir: 'in' | 'out', line: string): void {
    let message: Record<string, any>
    try {
      message = JSON.parse(line)
    } catch {
      if (dir === 'out') this.problems.push(`not JSON: ${line.slice(0, 200)}`)
      return
    }
    this.lines.push({ dir, message })
    if (dir === 'in') {
      if (typeof message.method === 'string' && 'id' in message)
        this.asked.set(JSON.stringify(message.id), message.method)
      return
    }
    const report = (errors: string[]) => {
      for (const error of errors) this.problems.push(`${error} in ${line.slice(0, 300)}`)
    }
    // Extension methods (`_`-prefixed) are in no schema: their shapes are their own contracts.
    if (typeof message.method === 'string') {
      if (!message.method.startsWith('_')) report(checkV2(message.method, 'params', message.params))
    } else if ('result' in message) {
      const method = this.asked.get(JSON.stringify(message.id))
      if (method === undefined) this.problems.push(`an answer to no request: ${line.slice(0, 200)}`)
      else if (!method.startsWith('_')) report(checkV2(method, 'result', message.result))
    }
  }

  /** The `session/update` updates the agent sent, in order. */
  updates(): Record<string, any>[] {
    return this.lines
      .filter((l) => l.dir === 'out' && l.message.method === 'session/update')
      .map((l) => l.message.params.update)
  }
}
