import type { FromSchema, JSONSchema } from 'json-schema-to-ts'
import type { JsonValue } from '../../session/index.js'
import type { ToolResult, ToolSpec } from '../types.js'
import type { InputGuard } from './schema-compiler.js'
import { type Tool, type ToolContext, ToolFailure, type ToolPreview } from './tool.js'

// Not re-exported by the package: json-schema-to-ts is a development dependency, so no published
// declaration may name its types (the tools themselves are declared as plain `Tool`s).

/** A tool input schema: a JSON Schema (as a `const` literal) that describes an object. */
export type InputSchema = JSONSchema & { readonly type: 'object' } & { readonly [key: string]: JsonValue }

/**
 * A tool whose `run` takes the input its schema describes, typed from the schema itself. The rest is
 * as in {@link Tool}: `title`, `locations` and `permissionScope` still see the raw input.
 */
export interface ToolDefinition<S extends InputSchema, Input = FromSchema<S>>
  extends Omit<Tool, 'spec' | 'run' | 'preview'> {
  readonly spec: ToolSpec & { readonly inputSchema: S }
  preview?(input: Input, context: ToolContext): Promise<ToolPreview>
  run(input: Input, context: ToolContext): Promise<ToolResult>
}

/**
 * The {@link Tool} for a definition. Its `run` checks the input against the schema (compiled on the
 * first call) before the definition's `run` sees it, so the input's type follows from that check;
 * input the schema refuses is a {@link ToolFailure} saying why (the registry refuses it earlier).
 */
export function defineTool<const S extends InputSchema, Input = FromSchema<S>>(
  definition: ToolDefinition<S, Input>,
): Tool {
  const { run, preview, ...described } = definition
  let guard: Promise<InputGuard<Input>> | undefined
  const checked = async (input: JsonValue): Promise<Input> => {
    guard ??= import('./schema-compiler.js').then((m) =>
      m.compileInputGuard<Input>(definition.spec.inputSchema),
    )
    const schema = await guard
    if (!schema.matches(input)) throw new ToolFailure(`invalid input: ${schema.why(input)}`)
    return input
  }
  return {
    ...described,
    ...(preview && { preview: async (input, context) => preview(await checked(input), context) }),
    run: async (input, context) => run(await checked(input), context),
  }
}
