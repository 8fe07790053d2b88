import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe } from 'vitest'
import { crossQuestionScenarios, WRITE_MODEL } from '../support/cross-questions.js'
import { postgresHosts } from '../support/postgres/hosts.js'
import { freshSchema } from '../support/postgres/test-database.js'

// Two built `dsh-acp` hosts on one PostgreSQL database, each with its own client: a permission
// request of A's turn is asked of B's client too, through the database's notice board; the first
// answer settles it, the tool runs once, the other client's request is withdrawn and both see the
// outcome; presence counts both hosts' clients; a host killed mid-question drops out. The same
// scenarios as between two processes on one JSONL store (cross-questions.test.ts).

const hosts = postgresHosts('dsh-acp-pg-board-')
const WRITE = hosts.script('write', WRITE_MODEL)

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('questions and presence across hosts on PostgreSQL', () => {
  crossQuestionScenarios(async (answerA, answerB) => {
    const url = await freshSchema()
    const cwd = mkdtempSync(join(tmpdir(), 'dsh-acp-pg-board-cwd-'))
    dirs.push(cwd)
    const a = await hosts.stdio(url, { script: WRITE, cwd, name: 'window-a', answer: answerA })
    const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] })
    const b = await hosts.stdio(url, { script: WRITE, cwd, name: 'window-b', answer: answerB })
    await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    return { a, b, sessionId, cwd }
  })
})
