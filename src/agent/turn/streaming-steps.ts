/**
 * Per session, the model step whose chunks are going out. They are tagged with the seq its
 * `assistant/message` will get (the log's next seq when the step began), so nothing else may be
 * appended to the session until that message is: a change made meanwhile (a mode set by another
 * client) waits for it ({@link StreamingSteps.passed}). A step is marked from its first chunk: what
 * runs before (the model's request) claims no seq yet.
 */
export class StreamingSteps {
  private readonly open = new Map<string, Promise<void>>()

  /** Marks a step of `sessionId` as streaming; the function returned ends it (idempotent). */
  begin(sessionId: string): () => void {
    let end = () => {}
    const streaming = new Promise<void>((resolve) => {
      end = resolve
    })
    this.open.set(sessionId, streaming)
    return () => {
      if (this.open.get(sessionId) === streaming) this.open.delete(sessionId)
      end()
    }
  }

  /** Resolves once no step of `sessionId` streams (at once when none does). */
  async passed(sessionId: string): Promise<void> {
    for (let open = this.open.get(sessionId); open !== undefined; open = this.open.get(sessionId)) await open
  }
}
