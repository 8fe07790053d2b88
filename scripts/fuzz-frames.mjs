// The seeded frame generator of scripts/fuzz.mjs: hostile and ordinary JSON-RPC frames for one
// `dsh-acp` process. The same seed (and the same sessions pushed in the same order) gives the same
// frames, so a failing run can be replayed.

/** mulberry32: a small seeded PRNG, so a failing run can be replayed with its seed. */
function prng(state) {
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A generator over `seed`. `cwd` is an existing directory and `aFile` a file in it (both used as
 * session directories, good and bad). `sessions` holds the ids frames address (push the ids of the
 * sessions created; `session/delete` frames take ids out); `expected` maps the id (JSON text) of each
 * well-formed request generated to its method, for the caller to check each is answered once.
 */
export function fuzzFrames(seed, cwd, aFile) {
  const random = prng(seed)
  const int = (n) => Math.floor(random() * n)
  const pick = (items) => items[int(items.length)]
  const chance = (p) => random() < p

  const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty']
  const deepText = (depth, open = '[', close = ']', leaf = '1') =>
    open.repeat(depth) + leaf + close.repeat(depth)
  const deepObjectText = (depth, key = 'a') => `${`{"${key}":`.repeat(depth)}1${'}'.repeat(depth)}`

  /** Random JSON text: sometimes deep, sometimes with prototype keys, sometimes large. */
  function jsonText(budget = 4) {
    const r = random()
    if (r < 0.08) return deepText(pick([100, 255, 257, 1000, 5000, 20000]))
    if (r < 0.16) return deepObjectText(pick([100, 254, 300, 3000, 5000]), pick(['a', ...PROTO_KEYS]))
    if (r < 0.3 || budget <= 0)
      return pick([
        '1',
        '-0',
        '1e308',
        '1e400',
        'null',
        'true',
        '"x"',
        '"\\u0000"',
        '"\\ud800"',
        '0.5',
        '123456789012345678901234567890',
      ])
    if (r < 0.55) {
      const n = int(4)
      return `[${Array.from({ length: n }, () => jsonText(budget - 1)).join(',')}]`
    }
    const n = int(4)
    const fields = Array.from(
      { length: n },
      () => `${JSON.stringify(chance(0.4) ? pick(PROTO_KEYS) : `k${int(5)}`)}:${jsonText(budget - 1)}`,
    )
    return `{${fields.join(',')}}`
  }

  function hostileId() {
    return pick([
      deepText(5000),
      deepObjectText(5000),
      '1.5',
      'null',
      'true',
      '{}',
      '[]',
      '1e400',
      '-1',
      '9007199254740993',
      JSON.stringify('x'.repeat(200_000)),
      '"__proto__"',
      '"constructor"',
      String(int(1000)),
    ])
  }

  const sessions = []
  /** Tracked request ids start far from the small ids hostile frames use. */
  let nextId = 1_000_000
  /** id (JSON text) -> method, for well-formed requests still to be answered. */
  const expected = new Map()

  function request(method, paramsText) {
    const id = chance(0.3)
      ? JSON.stringify(`r${nextId++}${chance(0.1) ? 'y'.repeat(int(50_000)) : ''}`)
      : String(nextId++)
    expected.set(id, method)
    return `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}${paramsText === undefined ? '' : `,"params":${paramsText}`}}`
  }

  function session() {
    return sessions.length > 0 ? pick(sessions) : 'ses_missing'
  }

  function promptBlock() {
    const meta = chance(0.5) ? `,"_meta":${jsonText()}` : ''
    const type = chance(0.9) ? '"text"' : JSON.stringify(pick([...PROTO_KEYS, 'image', 'resource', 'nope']))
    return `{"type":${type},"text":${JSON.stringify(chance(0.02) ? 'z'.repeat(int(30_000)) : `hello ${int(100)}`)}${meta}}`
  }

  /** One frame: a line (string), raw bytes (Buffer), or several lines written at once. */
  function frame() {
    const r = random()
    if (r < 0.14) {
      const blocks = Array.from({ length: 1 + int(3) }, promptBlock).join(',')
      return request('session/prompt', `{"sessionId":${JSON.stringify(session())},"prompt":[${blocks}]}`)
    }
    if (r < 0.2)
      return request('session/list', chance(0.8) ? '{}' : `{"cursor":${jsonText(1)},"cwd":${jsonText(1)}}`)
    if (r < 0.25)
      return request(
        pick(['session/load', 'session/resume']),
        `{"sessionId":${JSON.stringify(session())},"cwd":${JSON.stringify(cwd)},"mcpServers":[]}`,
      )
    if (r < 0.27) return request('session/close', `{"sessionId":${JSON.stringify(session())}}`)
    if (r < 0.33) {
      const boundary = pick([jsonText(), '0', '1', '-1', '3', '1e400', deepText(3500), '"2"'])
      return request(
        'session/fork',
        `{"sessionId":${JSON.stringify(session())},"cwd":${JSON.stringify(cwd)},"mcpServers":[],"_meta":{"dsh":{"boundary":${boundary}}}}`,
      )
    }
    if (r < 0.38) {
      const where = pick([
        JSON.stringify(cwd),
        JSON.stringify(cwd),
        JSON.stringify(aFile),
        '"/tmp/a\\u0000b"',
        '"relative"',
        jsonText(1),
      ])
      return request('session/new', `{"cwd":${where},"mcpServers":[]}`)
    }
    if (r < 0.39 && sessions.length > 3) {
      const victim = sessions.splice(int(sessions.length), 1)[0]
      return request('session/delete', `{"sessionId":${JSON.stringify(victim)}}`)
    }
    if (r < 0.47) {
      const recent = String(nextId - 1 - int(5))
      const id = chance(0.5) ? recent : hostileId()
      return chance(0.5)
        ? `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":${id}}}`
        : `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":${id}}}`
    }
    if (r < 0.53) {
      return chance(0.5)
        ? `{"jsonrpc":"2.0","id":${hostileId()},"result":${jsonText()}}`
        : `{"jsonrpc":"2.0","id":${hostileId()},"error":${jsonText()}}`
    }
    if (r < 0.6)
      return request(
        pick(['nope', 'constructor', '__proto__', 'toString', 'session/prompt/x', '$/ping']),
        chance(0.5) ? '{}' : jsonText(2),
      )
    if (r < 0.68) {
      return pick([
        `{"jsonrpc":"2.0","id":${hostileId()},"method":"session/list","params":{}}`,
        `{"jsonrpc":"1.0","id":1,"method":"session/list"}`,
        `{"jsonrpc":"2.0","id":1,"method":${jsonText(1)}}`,
        `{"jsonrpc":"2.0","id":"p","method":"session/list","params":"str"}`,
        `{"__proto__":{"jsonrpc":"2.0","id":1,"method":"session/list"}}`,
        `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":${JSON.stringify(session())}}}`,
        `{"jsonrpc":"2.0","method":"session/cancel","params":${jsonText()}}`,
      ])
    }
    if (r < 0.74) return Buffer.from([0x7b, 0xff, 0xfe, 0x22, 0xc0, 0xaf, 0x7d, 0x0a])
    if (r < 0.82)
      return pick([
        '',
        '   ',
        '{',
        '{"jsonrpc":"2.0"',
        'null',
        '[]',
        '[1,2]',
        '"str"',
        '42',
        deepText(10000),
        jsonText(),
        '[{"jsonrpc":"2.0","id":"in-batch","method":"session/list"}]',
      ])
    if (r < 0.9) return request('session/list', `{"_meta":${jsonText()}}`)
    return request(
      'session/prompt',
      `{"sessionId":${JSON.stringify(session())},"prompt":[{"type":"text","text":"x","_meta":${deepObjectText(pick([200, 300, 3000, 5000]), pick(PROTO_KEYS))}}]}`,
    )
  }

  return { frame, chance, int, sessions, expected }
}
