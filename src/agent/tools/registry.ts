import { Ajv, type ValidateFunction } from 'ajv'
import type { JsonValue } from '../../session/index.js'
import type { ToolSpec } from '../types.js'
import type { Tool } from './tool.js'

/** A tool with the validator compiled from its declared input schema. */
export interface RegisteredTool {
  readonly tool: Tool
  /** Why `input` does not match the tool's schema, or undefined when it does. */
  invalid(input: JsonValue): string | undefined
}

/** Tool names the OpenAI-style APIs accept: letters, digits, `_` and `-`, at most 64. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

const GLOBAL = ''

/**
 * The one registry of tools. Each entry's declared JSON Schema is compiled once and is what
 * validates every call's input. Entries are global (built-in tools, offered to every session) or
 * belong to one session (its MCP servers' tools), and `register` returns the function that takes
 * the entry out again. A session's tools never shadow a global name.
 */
export class ToolRegistry {
  private readonly scopes = new Map<string, Map<string, RegisteredTool>>()
  private readonly ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true })

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool)
  }

  /**
   * Adds a tool, globally or for `sessionId`. Throws when the name is malformed or taken, or the
   * schema does not compile (or does not describe an object). The returned function removes it.
   */
  register(tool: Tool, sessionId?: string): () => void {
    const name = tool.spec.name
    if (!TOOL_NAME.test(name)) throw new Error(`tool name ${JSON.stringify(name)} is not [A-Za-z0-9_-]{1,64}`)
    const scope = sessionId ?? GLOBAL
    if (this.scopes.get(GLOBAL)?.has(name) || this.scopes.get(scope)?.has(name)) {
      throw new Error(`tool ${name} is already registered`)
    }
    if (scope === GLOBAL) {
      for (const tools of this.scopes.values()) {
        if (tools.has(name)) throw new Error(`tool ${name} is already registered by a session`)
      }
    }
    const entry: RegisteredTool = { tool, invalid: this.compile(tool.spec) }
    const tools = this.scopes.get(scope) ?? new Map<string, RegisteredTool>()
    tools.set(name, entry)
    this.scopes.set(scope, tools)
    return () => {
      const current = this.scopes.get(scope)
      if (current?.get(name) !== entry) return
      current.delete(name)
      if (current.size === 0 && scope !== GLOBAL) this.scopes.delete(scope)
    }
  }

  /** The tools `sessionId` sees: the global ones, then its own, in registration order. */
  forSession(sessionId: string): ToolSet {
    return new ToolSet([
      ...(this.scopes.get(GLOBAL)?.values() ?? []),
      ...(sessionId !== GLOBAL ? (this.scopes.get(sessionId)?.values() ?? []) : []),
    ])
  }

  /** The global tools' specs. */
  specs(): ToolSpec[] {
    return this.forSession(GLOBAL).specs()
  }

  get(name: string): Tool | undefined {
    return this.scopes.get(GLOBAL)?.get(name)?.tool
  }

  private compile(spec: ToolSpec): RegisteredTool['invalid'] {
    const schema = spec.inputSchema
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new Error(`tool ${spec.name}: inputSchema must be a JSON Schema object`)
    }
    if ((schema as { type?: unknown }).type !== 'object') {
      throw new Error(`tool ${spec.name}: inputSchema must describe an object (type: "object")`)
    }
    const { $schema: _dialect, ...rest } = schema as { readonly [key: string]: JsonValue }
    let validate: ValidateFunction
    try {
      validate = this.ajv.compile(rest)
    } catch (error) {
      throw new Error(`tool ${spec.name}: inputSchema does not compile: ${(error as Error).message}`)
    }
    return (input) => {
      if (validate(input)) return undefined
      return (validate.errors ?? [])
        .map((e) => `input${e.instancePath.replaceAll('/', '.')} ${e.message ?? 'is invalid'}`)
        .join('; ')
    }
  }
}

/** A session's view of the registry at one moment: what a turn step offers and runs. */
export class ToolSet {
  private readonly byName: ReadonlyMap<string, RegisteredTool>

  constructor(entries: readonly RegisteredTool[]) {
    this.byName = new Map(entries.map((entry) => [entry.tool.spec.name, entry]))
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name)
  }

  /** What the model is told about the tools that `offered` lets through. */
  specs(offered: (tool: Tool) => boolean = () => true): ToolSpec[] {
    return [...this.byName.values()].filter((e) => offered(e.tool)).map((e) => e.tool.spec)
  }
}
