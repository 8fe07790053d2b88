import { describeExit } from './agent-exit.js'
import type { Difference } from './compare/compare.js'
import type { ReplayReport, Violation } from './replay.js'

const show = (value: unknown) => (value === undefined ? '(nothing)' : JSON.stringify(value))
const clip = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…` : text)

function where(item: { line?: number; afterLine?: number; atLine?: number }, file: string): string {
  if (item.line !== undefined) return `${file}:${item.line}`
  if (item.afterLine !== undefined)
    return item.afterLine === 0 ? `${file}, before any agent line` : `${file}, after line ${item.afterLine}`
  if (item.atLine !== undefined) return `${file}:${item.atLine}`
  return `${file}, at the end`
}

function renderDifference(d: Difference, file: string): string[] {
  const head = `${where(d, file)}: `
  switch (d.kind) {
    case 'changed': {
      const lines = [`${head}${d.what} differs`]
      for (const f of d.fields ?? [])
        lines.push(`    ${f.path}: expected ${clip(show(f.expected))}, got ${clip(show(f.actual))}`)
      if (d.note) lines.push(`    (${d.note})`)
      return lines
    }
    case 'missing':
      return [`${head}missing ${d.what}`, `    expected ${clip(show(d.expected))}`]
    case 'extra':
      return [
        `${head}extra ${d.what}`,
        `    got ${clip(show(d.actual))}`,
        ...(d.note ? [`    (${d.note})`] : []),
      ]
    default:
      return [
        `${head}${d.what}${d.atLine !== undefined && d.line !== undefined ? ` (before sending line ${d.atLine})` : ''}`,
      ]
  }
}

function renderViolation(v: Violation, file: string): string[] {
  return [`${where(v, file)}: ${v.what} breaks the ACP schema`, ...v.errors.map((e) => `    ${clip(e)}`)]
}

/** The human report: one block per difference, each naming the transcript line it comes from. */
export function renderText(report: ReplayReport, file: string): string {
  const lines: string[] = []
  for (const d of report.differences) lines.push(...renderDifference(d, file))
  for (const v of report.violations) lines.push(...renderViolation(v, file))
  for (const [index, c] of report.connections.entries()) {
    const abnormal =
      !c.completed || (c.exit.code !== 0 && c.exit.code !== null) || c.exit.signal === 'SIGKILL'
    if (abnormal && c.stderr.trim() !== '') {
      lines.push(`agent ${index + 1} ended with ${describeExit(c.exit)}; the end of its stderr:`)
      lines.push(
        ...c.stderr
          .trimEnd()
          .split('\n')
          .slice(-20)
          .map((l) => `    ${l}`),
      )
    }
  }
  const counts = `${report.differences.length} difference${report.differences.length === 1 ? '' : 's'}, ${report.violations.length} schema violation${report.violations.length === 1 ? '' : 's'}`
  const agentMessages = report.live.filter((e) => e.dir === 'out').length
  lines.push(
    report.equal
      ? `${file}: equal (${agentMessages} agent messages, ${report.connections.length} connection${report.connections.length === 1 ? '' : 's'})`
      : `${file}: ${counts}`,
  )
  return `${lines.join('\n')}\n`
}

/**
 * The machine report (`--json`): `{ file, equal, differences, violations, agents }`, where each
 * difference is `{ kind, connection, line?, afterLine?, atLine?, what, fields?, expected?, actual?,
 * note? }` (kinds: changed, missing, extra, timeout, exit; `fields` are `{ path, expected?, actual? }`
 * with JSON pointers; values are normalized), each violation `{ connection, line?, afterLine?, what,
 * errors }`, and each agent `{ exit: { code, signal }, completed }`.
 */
export function renderJson(report: ReplayReport, file: string): string {
  return `${JSON.stringify({
    file,
    equal: report.equal,
    differences: report.differences,
    violations: report.violations,
    agents: report.connections.map((c) => ({ exit: c.exit, completed: c.completed })),
  })}\n`
}
