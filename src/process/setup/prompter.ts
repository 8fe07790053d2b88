/** The user ended the set-up (Ctrl-C, or the input ended before an answer). */
export class SetupCancelled extends Error {}

/**
 * Questions on a terminal (or on piped input, one answer a line). A hidden question turns the
 * terminal's echo off (raw mode) while the answer is typed, so a key is never shown; on piped
 * input there is no echo to turn off.
 */
export class Prompter {
  private buffer = ''
  private ended = false
  private waiting: (() => void) | undefined

  constructor(
    private readonly input: NodeJS.ReadableStream & {
      isTTY?: boolean
      setRawMode?: (raw: boolean) => unknown
    },
    private readonly output: NodeJS.WritableStream,
  ) {
    input.setEncoding('utf8')
    input.on('data', (chunk: string) => {
      this.buffer += chunk
      this.waiting?.()
    })
    input.on('end', () => {
      this.ended = true
      this.waiting?.()
    })
    input.pause()
  }

  say(text: string): void {
    this.output.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** One answer, trimmed; `fallback` for an empty one. */
  async ask(question: string, fallback = ''): Promise<string> {
    this.output.write(fallback === '' ? `${question}: ` : `${question} [${fallback}]: `)
    const answer = (await this.line(false)).trim()
    return answer === '' ? fallback : answer
  }

  /** An answer typed without echo. */
  async askHidden(question: string): Promise<string> {
    // Echo off before the question shows: what is typed (or pasted) at once is never echoed.
    const raw = this.input.isTTY === true && typeof this.input.setRawMode === 'function'
    if (raw) this.input.setRawMode?.(true)
    this.output.write(`${question} (not shown): `)
    try {
      return (await this.line(raw)).trim()
    } finally {
      if (raw) this.input.setRawMode?.(false)
      this.output.write('\n')
    }
  }

  /** One of `choices` by number (1-based) or by its id; `fallback` (an index) for an empty answer. */
  async choose(
    question: string,
    choices: readonly { id: string; title: string }[],
    fallback = 0,
  ): Promise<number> {
    for (const [i, choice] of choices.entries()) this.say(`  ${i + 1}) ${choice.title}`)
    for (;;) {
      const answer = await this.ask(question, String(fallback + 1))
      const index = /^\d+$/.test(answer) ? Number(answer) - 1 : choices.findIndex((c) => c.id === answer)
      if (index >= 0 && index < choices.length) return index
      this.say(`Answer a number from 1 to ${choices.length}.`)
    }
  }

  async confirm(question: string, fallback: boolean): Promise<boolean> {
    for (;;) {
      const answer = (await this.ask(`${question} (y/n)`, fallback ? 'y' : 'n')).toLowerCase()
      if (answer === 'y' || answer === 'yes') return true
      if (answer === 'n' || answer === 'no') return false
      this.say(
        `${JSON.stringify(answer)} is neither yes nor no: answer y or n (Enter: ${fallback ? 'y' : 'n'}).`,
      )
    }
  }

  close(): void {
    this.input.pause()
    this.input.removeAllListeners('data')
  }

  /**
   * The next line. In raw mode the terminal sends each key: Enter ends the line, Backspace removes
   * a character, Ctrl-C cancels, Ctrl-D on an empty line ends the input.
   */
  private async line(raw: boolean): Promise<string> {
    this.input.resume()
    try {
      for (;;) {
        if (raw) {
          let typed = ''
          for (const char of this.buffer) {
            if (char === '\u0003') throw new SetupCancelled('cancelled')
            if (char === '\u0004' && typed === '') throw new SetupCancelled('the input ended')
            if (char === '\r' || char === '\n') {
              this.buffer = this.buffer.slice(this.buffer.indexOf(char) + 1)
              return typed
            }
            if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1)
            else typed += char
          }
        } else {
          const end = this.buffer.indexOf('\n')
          if (end >= 0) {
            const line = this.buffer.slice(0, end).replace(/\r$/, '')
            this.buffer = this.buffer.slice(end + 1)
            return line
          }
        }
        if (this.ended) throw new SetupCancelled('the input ended before an answer')
        await new Promise<void>((done) => {
          this.waiting = done
        })
        this.waiting = undefined
      }
    } finally {
      this.input.pause()
    }
  }
}
