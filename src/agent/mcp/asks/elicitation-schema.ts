import type * as acp from '@agentclientprotocol/sdk'
import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js'

/** An MCP form's `requestedSchema`, as the SDK parsed it. */
type McpFormSchema = ElicitRequestFormParams['requestedSchema']
type McpProperty = McpFormSchema['properties'][string]

/** The ACP form for an MCP form, or why it cannot be shown as one. */
export type MappedForm =
  | { readonly ok: true; readonly schema: acp.ElicitationSchema }
  | { readonly ok: false; readonly reason: string }

/**
 * MCP's form schema as ACP's: the two share their field kinds (string with `format`, number,
 * integer, boolean, single select by `enum` or titled `oneOf`, multi select by `items.enum` or
 * titled `items.anyOf`), so each field keeps its title, description, bounds and default. MCP's
 * legacy `enumNames` becomes a titled `oneOf`. A form that does not add up (a required field that
 * is not declared, an empty choice, `enumNames` that do not match `enum`, a field of no known kind)
 * is refused with the reason: the caller declines it rather than show the user something else.
 */
export function acpFormSchema(schema: McpFormSchema): MappedForm {
  const properties: Record<string, acp.ElicitationPropertySchema> = {}
  for (const [name, property] of Object.entries(schema.properties)) {
    const mapped = acpProperty(property)
    if (typeof mapped === 'string') return { ok: false, reason: `field ${JSON.stringify(name)}: ${mapped}` }
    properties[name] = mapped
  }
  const required = schema.required ?? []
  const undeclared = required.filter((name) => !Object.hasOwn(properties, name))
  if (undeclared.length > 0) {
    return { ok: false, reason: `required fields not in the form: ${undeclared.join(', ')}` }
  }
  return {
    ok: true,
    schema: { type: 'object', properties, ...(required.length > 0 && { required: [...required] }) },
  }
}

/** Title and description, where given. */
function described(property: {
  readonly title?: string | undefined
  readonly description?: string | undefined
}) {
  return {
    ...(property.title !== undefined && { title: property.title }),
    ...(property.description !== undefined && { description: property.description }),
  }
}

function bounded<K extends string>(
  property: Partial<Record<K, number | undefined>>,
  keys: readonly K[],
): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {}
  for (const key of keys) {
    const value = property[key]
    if (value !== undefined) out[key] = value
  }
  return out
}

/** One field as ACP's, or why it cannot be. */
function acpProperty(property: McpProperty): acp.ElicitationPropertySchema | string {
  switch (property.type) {
    case 'boolean':
      return {
        type: 'boolean',
        ...described(property),
        ...(property.default !== undefined && { default: property.default }),
      }
    case 'number':
    case 'integer':
      return {
        type: property.type,
        ...described(property),
        ...bounded(property, ['minimum', 'maximum'] as const),
        ...(property.default !== undefined && { default: property.default }),
      }
    case 'string':
      return stringProperty(property)
    case 'array':
      return multiSelect(property)
    default:
      return `fields of type ${JSON.stringify((property as { type: unknown }).type)} cannot be shown`
  }
}

function stringProperty(
  property: Extract<McpProperty, { type: 'string' }>,
): acp.ElicitationPropertySchema | string {
  const base = {
    type: 'string' as const,
    ...described(property),
    ...(property.default !== undefined && { default: property.default }),
  }
  if ('oneOf' in property && Array.isArray(property.oneOf)) {
    if (property.oneOf.length === 0) return 'a choice with no options'
    return { ...base, oneOf: property.oneOf.map((option) => ({ const: option.const, title: option.title })) }
  }
  if ('enum' in property && Array.isArray(property.enum)) {
    const values = property.enum
    if (values.length === 0) return 'a choice with no options'
    const names = 'enumNames' in property ? property.enumNames : undefined
    if (names === undefined) return { ...base, enum: [...values] }
    if (names.length !== values.length) return 'enumNames does not match enum'
    return { ...base, oneOf: values.map((value, i) => ({ const: value, title: names[i] ?? value })) }
  }
  const text = property as { minLength?: number; maxLength?: number; format?: acp.StringFormat }
  return {
    ...base,
    ...bounded(text, ['minLength', 'maxLength'] as const),
    ...(text.format !== undefined && { format: text.format }),
  }
}

function multiSelect(
  property: Extract<McpProperty, { type: 'array' }>,
): acp.ElicitationPropertySchema | string {
  const base = {
    type: 'array' as const,
    ...described(property),
    ...bounded(property, ['minItems', 'maxItems'] as const),
    ...(property.default !== undefined && { default: [...property.default] }),
  }
  const items = property.items
  if ('anyOf' in items) {
    if (items.anyOf.length === 0) return 'a choice with no options'
    return {
      ...base,
      items: { anyOf: items.anyOf.map((option) => ({ const: option.const, title: option.title })) },
    }
  }
  if (items.enum.length === 0) return 'a choice with no options'
  return { ...base, items: { type: 'string', enum: [...items.enum] } }
}
