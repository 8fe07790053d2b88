import type { JsonValue } from '../../session/index.js'
import type { ToolSpec } from '../types.js'
import type { InputCheck, SchemaCompiler } from './schema-compiler.js'
import type { Tool } from './tool.js'

/** A tool with the validator compiled from its declared input schema. */
export interface RegisteredTool {
  readonly tool: Tool
  /** Why `input` does not match the tool's schema, or undefined when it does. */
  invalid(input: JsonValue): Promise<string | undefined>
}

/** Tool names the OpenAI-style APIs accept: letters, digits, `_` and `-`, at most 64. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

const GLOBAL = ''

type JsonObject = { readonly [key: string]: JsonValue }

/**
 * The one registry of tools. Each entry's declared JSON Schema is compiled once and is what
 * validates every call's input. Entries are global (built-in tools, offered to every session) or
 * belong to one session (its MCP servers' tools); registering returns the function that takes the
 * entry out again. A session's tools never shadow a global name.
 *
 * A session's tool is compiled before it is added, so a schema that does not compile refuses the
 * tool. A global tool's schema (the built-in tools' own) is compiled when a call is first
 * validated, and the schema compiler (ajv) is loaded then: compiling them all at start, with
 * ajv's meta-schema, took most of the server's start.
 */
export class ToolRegistry {
  private readonly scopes = new Map<string, Map<string, RegisteredTool>>()
  private compiler: Promise<SchemaCompiler> | undefined
  private readonly ranks = new WeakMap<RegisteredTool, number>()

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool)
  }

  /**
   * Adds a global tool. Throws when the name is malformed or taken, or the schema does not
   * describe an object; a schema that does not compile makes every call of it invalid, saying why.
   * The returned function removes it.
   */
  register(tool: Tool): () => void {
    const name = checkedName(tool)
    const schema = objectSchema(tool.spec)
    let check: Promise<InputCheck> | undefined
    return this.add(GLOBAL, {
      tool,
      invalid: async (input) => {
        check ??= this.compile(name, schema)
        try {
          return (await check)(input)
        } catch (error) {
          return (error as Error).message
        }
      },
    })
  }

  /**
   * Adds a tool for `sessionId` once its schema is compiled. Rejects when the name is malformed or
   * taken, or the schema does not compile or does not describe an object. Resolves to the
   * function that removes it. The session's tools are seen by `rank` (default 0), then in
   * registration order. `compiler`: the one to compile with (an MCP connection's own, so what it
   * compiled goes with it); absent: the registry's.
   */
  async registerForSession(
    tool: Tool,
    sessionId: string,
    options: { readonly rank?: number; readonly compiler?: SchemaCompiler } = {},
  ): Promise<() => void> {
    if (sessionId === GLOBAL) throw new Error('a session id is needed')
    const name = checkedName(tool)
    const check = await this.compile(name, objectSchema(tool.spec), options.compiler)
    const entry: RegisteredTool = { tool, invalid: async (input) => check(input) }
    this.ranks.set(entry, options.rank ?? 0)
    return this.add(sessionId, entry)
  }

  /** The tools `sessionId` sees: the global ones, then its own (by rank, then registration order). */
  forSession(sessionId: string): ToolSet {
    const own = sessionId !== GLOBAL ? [...(this.scopes.get(sessionId)?.values() ?? [])] : []
    const rank = (entry: RegisteredTool) => this.ranks.get(entry) ?? 0
    return new ToolSet([
      ...(this.scopes.get(GLOBAL)?.values() ?? []),
      ...own.sort((a, b) => rank(a) - rank(b)),
    ])
  }

  /** The global tools' specs. */
  specs(): ToolSpec[] {
    return this.forSession(GLOBAL).specs()
  }

  get(name: string): Tool | undefined {
    return this.scopes.get(GLOBAL)?.get(name)?.tool
  }

  private add(scope: string, entry: RegisteredTool): () => void {
    const name = entry.tool.spec.name
    if (this.scopes.get(GLOBAL)?.has(name) || this.scopes.get(scope)?.has(name)) {
      throw new Error(`tool ${name} is already registered`)
    }
    if (scope === GLOBAL) {
      for (const tools of this.scopes.values()) {
        if (tools.has(name)) throw new Error(`tool ${name} is already registered by a session`)
      }
    }
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

  private sharedCompiler(): Promise<SchemaCompiler> {
    this.compiler ??= import('./schema-compiler.js').then((m) => m.createSchemaCompiler())
    return this.compiler
  }

  private async compile(name: string, schema: JsonObject, compiler?: SchemaCompiler): Promise<InputCheck> {
    const compile = compiler ?? (await this.sharedCompiler())
    try {
      return compile(schema)
    } catch (error) {
      throw new Error(`tool ${name}: inputSchema does not compile: ${(error as Error).message}`)
    }
  }
}

function checkedName(tool: Tool): string {
  const name = tool.spec.name
  if (!TOOL_NAME.test(name)) throw new Error(`tool name ${JSON.stringify(name)} is not [A-Za-z0-9_-]{1,64}`)
  return name
}

/** The tool's input schema without its `$schema` dialect; throws unless it describes an object. */
function objectSchema(spec: ToolSpec): JsonObject {
  const schema = spec.inputSchema
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error(`tool ${spec.name}: inputSchema must be a JSON Schema object`)
  }
  if ((schema as { type?: unknown }).type !== 'object') {
    throw new Error(`tool ${spec.name}: inputSchema must describe an object (type: "object")`)
  }
  const { $schema: _dialect, ...rest } = schema as JsonObject
  return rest
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
