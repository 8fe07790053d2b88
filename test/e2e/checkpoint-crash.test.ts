import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { INLINE_BEFORE_BYTES } from '../../src/agent/checkpoints/checkpoint-event.js'
import type { AgentProcess } from '../support/agent-process.js'
import { testResources } from '../support/test-resources.js'

/**
 * Issue 24, crash safety of file checkpoints: the built binary is killed (SIGKILL) at a random
 * moment while its tools edit a large file turn after turn. Whatever the moment, every complete
 * `checkpoint:file` line of the session file names content that is there: a blob holding exactly
 * the bytes it names (written and renamed into place before the event), or inline text.
 */

const ROUNDS = 6
const TURNS = 12
const resources = testResources()

const BIG = `edit 0\n${'x'.repeat(INLINE_BEFORE_BYTES * 2)}\n`
const TURNS_SCRIPT = Array.from({ length: TURNS }, (_, t) => [
  [
    {
      toolCall: {
        name: 'edit_text_file',
        input: { path: 'big.txt', edits: [{ oldText: `edit ${t}\n`, newText: `edit ${t + 1}\n` }] },
      },
    },
  ],
  [{ text: `edit ${t + 1} done` }],
])

describe('file checkpoints survive a kill at any moment', () => {
  it('every complete checkpoint line names content that is stored whole', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const base = realpathSync(resources.tempDir('dsh-acp-ckpt-kill-'))
      const cwd = join(base, 'project')
      const storeDir = join(base, 'store')
      mkdirSync(cwd)
      writeFileSync(join(cwd, 'big.txt'), BIG)
      const model = join(base, 'model.json')
      writeFileSync(model, JSON.stringify({ turns: TURNS_SCRIPT }))
      const killAt = 1 + Math.floor(Math.random() * (TURNS - 1))
      let asked = 0
      let agent: AgentProcess | undefined
      agent = resources.start({
        storeDir,
        cwd,
        args: ['--model', `script:${model}`],
        setupClient: (app) => {
          app.onRequest('session/request_permission', ({ params }) => {
            asked++
            // Killed while the approved edit runs: somewhere in reading, keeping, writing, logging.
            if (asked === killAt) setTimeout(() => agent?.child.kill('SIGKILL'), Math.random() * 4)
            const option = params.options.find((o) => o.kind === 'allow_once')
            return { outcome: { outcome: 'selected', optionId: option?.optionId ?? '' } }
          })
        },
      })
      await agent.initialize()
      const { sessionId } = await agent.agent.request('session/new', { cwd, mcpServers: [] })
      for (let t = 0; t < TURNS; t++) {
        const answered = await agent.agent
          .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `turn ${t}` }] })
          .then(
            () => true,
            () => false,
          )
        if (!answered) break
      }
      await agent.kill()

      const text = readFileSync(join(storeDir, `${sessionId}.jsonl`), 'utf8')
      const complete = text
        .slice(0, text.lastIndexOf('\n') + 1)
        .split('\n')
        .slice(1, -1)
      const checkpoints = complete.map((line) => JSON.parse(line)).filter((e) => e.type === 'checkpoint:file')
      for (const { data } of checkpoints) {
        const hex = (data.before as string).slice('sha256:'.length)
        const blob = join(storeDir, 'blobs', hex)
        expect(existsSync(blob), `round ${round}: blob of ${data.callId}`).toBe(true)
        expect(createHash('sha256').update(readFileSync(blob)).digest('hex')).toBe(hex)
      }
      expect(checkpoints.length).toBeGreaterThanOrEqual(killAt - 1)
    }
  }, 120_000)
})
