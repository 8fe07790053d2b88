import { ProtocolError } from './errors.js'
import {
  ACP_AGENT_METHODS,
  type AcpAgentMethods,
  type AcpMethodName,
  type ParamsValidator,
} from './schema/acp-methods.gen.js'
import * as stable from './schema/acp-stable.gen.js'

export interface SchemaIssue {
  readonly instancePath: string
  readonly keyword: string
  readonly params: Readonly<Record<string, unknown>>
}

/** Some of the methods' params validators (see scripts/generate-acp-validators.mjs). */
type Validators = { readonly [M in AcpMethodName]?: ParamsValidator<AcpAgentMethods[M]['params']> }

const STABLE: Validators = stable.PARAMS_VALIDATORS

/** The unstable schema's validators are loaded on first use: few clients call unstable methods. */
let unstable: Promise<Validators> | undefined

function check<M extends AcpMethodName>(
  method: M,
  validators: Validators,
  params: unknown,
): AcpAgentMethods[M]['params'] {
  const validate = validators[method]
  if (!validate)
    throw new Error(`no validator for ${method} (${ACP_AGENT_METHODS[method].params}): run npm run generate`)
  const value = params === undefined ? {} : params
  if (validate(value)) return value
  throw explain(method, validate.errors ?? [])
}

/** `/prompt/0/type` -> `prompt[0].type` */
function fieldName(instancePath: string, child?: unknown): string {
  const parts = instancePath.split('/').slice(1)
  if (typeof child === 'string') parts.push(child)
  let name = ''
  for (const part of parts) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~')
    name += /^\d+$/.test(key) ? `[${key}]` : name === '' ? key : `.${key}`
  }
  return name
}

/** What one schema issue says, for a person: the field it concerns and what is wrong with it. */
function describeIssue(issue: SchemaIssue): { field: string; problem: string } {
  const p = issue.params
  switch (issue.keyword) {
    case 'required':
      return { field: fieldName(issue.instancePath, p.missingProperty), problem: 'is required' }
    case 'type':
      return { field: fieldName(issue.instancePath), problem: `must be of type ${String(p.type)}` }
    case 'discriminator':
      return {
        field: fieldName(issue.instancePath, p.tag),
        problem:
          p.error === 'mapping'
            ? `${JSON.stringify(p.tagValue)} is not one of the types ACP defines here`
            : 'must be a string naming the type',
      }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        field: fieldName(issue.instancePath),
        problem: `must be ${String(p.comparison)} ${String(p.limit)}`,
      }
    case 'const':
      return { field: fieldName(issue.instancePath), problem: `must be ${JSON.stringify(p.allowedValue)}` }
    case 'enum':
      return {
        field: fieldName(issue.instancePath),
        problem: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      }
    case 'additionalProperties':
      return { field: fieldName(issue.instancePath, p.additionalProperty), problem: 'is not allowed here' }
    default:
      return { field: fieldName(issue.instancePath), problem: `does not match the schema (${issue.keyword})` }
  }
}

/**
 * The most specific explanation of a failed validation: the issues at the deepest field (a union
 * reports each branch's issue there; they are joined with "or"). `whole` names the validated
 * value itself.
 */
export function explainIssues(
  issues: readonly SchemaIssue[],
  whole: string,
): { readonly field: string; readonly problems: string } {
  const concrete = issues.filter((i) => i.keyword !== 'anyOf' && i.keyword !== 'oneOf')
  const candidates = (concrete.length > 0 ? concrete : issues).map(describeIssue)
  const depth = (field: string) => field.split(/[.[]/).length
  const deepest = Math.max(...candidates.map((c) => depth(c.field)))
  const atDeepest = candidates.filter((c) => depth(c.field) === deepest)
  const subject = (field: string) => (field === '' ? whole : field)
  const problems = [...new Set(atDeepest.map((c) => `${subject(c.field)} ${c.problem}`))]
  return { field: subject(atDeepest[0]?.field ?? ''), problems: problems.join(' or ') }
}

function explain(method: string, issues: readonly SchemaIssue[]): ProtocolError {
  const { field, problems } = explainIssues(issues, 'params')
  return ProtocolError.invalidParams(`${method}: ${problems}`, { field })
}

/**
 * Checks a request's or notification's params against the official ACP JSON schema of `method`
 * (the stable schema, or the unstable one for unstable methods). Absent params count as `{}`.
 * Throws -32602 naming the offending field; returns the params, now known to have the SDK's type.
 * Synchronous for stable methods; the first unstable one waits for its validators to load.
 */
export function validateParams<M extends AcpMethodName>(
  method: M,
  params: unknown,
): AcpAgentMethods[M]['params'] | Promise<AcpAgentMethods[M]['params']> {
  if (ACP_AGENT_METHODS[method].schema === 'stable') return check(method, STABLE, params)
  unstable ??= import('./schema/acp-unstable.gen.js').then((module): Validators => module.PARAMS_VALIDATORS)
  return unstable.then((validators) => check(method, validators, params))
}
