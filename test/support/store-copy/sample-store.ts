import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { JsonlPersistence, persistencePlugin } from '../../../src/persistence/index.js'
import type { AnyEventInput } from '../../../src/session/log/events.js'
import type { Session } from '../../../src/session/session.js'
import { startHost } from '../backends.js'
import { appendAll, appendTurn } from '../session-store.js'

const usd = (amount: number) => ({ amount, currency: 'USD' })

function pricedTurn(turn: number, step: number, total: number): AnyEventInput[] {
  return [
    { type: 'turn/start', data: { turn } },
    { type: 'user/message', data: { turn, content: [{ type: 'text', text: `priced question ${turn}` }] } },
    { type: 'step/start', data: { turn, step: 1 } },
    { type: 'assistant/message', data: { turn, step: 1, content: `answer ${turn}`, cost: usd(step) } },
    { type: 'step/end', data: { turn, step: 1 } },
    { type: 'turn/end', data: { turn, reason: 'completed', cost: usd(total) } },
  ]
}

function checkpointTurn(session: Session, name: string): void {
  const turn = session.lastTurn + 1
  appendAll(session, [
    { type: 'turn/start', data: { turn } },
    { type: 'user/message', data: { turn, content: [{ type: 'text', text: 'edit the big file' }] } },
    {
      type: 'checkpoint:file',
      data: { turn, callId: `c${turn}`, path: '/work/big.bin', before: name, after: 'absent' },
    },
    { type: 'turn/end', data: { turn, reason: 'completed' } },
  ])
}

/**
 * Fills the JSONL store `dir` with what a copy must carry: priced turns, a title, a checkpoint
 * blob, a fork child, a rewind (its branch made by a link), an archived session, and `plain` more
 * plain sessions. Resolves the ids of the rewound session, its branch and the child.
 */
export async function fillSampleStore(dir: string, plain = 0) {
  const host = await startHost((ctx) => ctx.plugin(persistencePlugin, { dir }))
  const persistence = host.persistence
  if (!(persistence instanceof JsonlPersistence)) throw new Error('not the JSONL backend')
  const s = host.sessions
  const main = appendAll(s.create('main'), [...pricedTurn(1, 0.01, 0.01), ...pricedTurn(2, 0.02, 0.03)])
  main.append({ type: 'session/title', data: { title: 'the main one' } })
  checkpointTurn(main, await persistence.blobs.put(randomBytes(48 << 10)))
  await s.flush(main.id)
  const child = await s.forkDurable(main, 6)
  appendTurn(child, 'in the child')
  const { session: rewound, branch } = await s.rewind(main, 12)
  appendAll(rewound, pricedTurn(3, 0.01, 0.04))
  const archived = s.create('archived')
  appendTurn(archived, 'old stuff')
  archived.append({ type: 'session/archived', data: { archived: true } })
  for (let i = 0; i < plain; i++) appendTurn(s.create(`plain-${String(i).padStart(3, '0')}`), `plain ${i}`)
  await s.flush()
  await host.stop()
  return { main: main.id, branch: branch.sessionId, child: child.id }
}

/** Every file of a store directory (blobs included; caches, locks and temp files left out), by name. */
export function storeFiles(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>()
  const walk = (at: string, prefix: string) => {
    for (const name of readdirSync(at).sort()) {
      if (name.startsWith('.') || name.endsWith('.lock')) continue
      const path = join(at, name)
      if (statSync(path).isDirectory()) walk(path, `${prefix}${name}/`)
      else files.set(`${prefix}${name}`, readFileSync(path))
    }
  }
  walk(dir, '')
  return files
}
