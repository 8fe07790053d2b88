import type { ListOptions, SessionHeader, SessionPage, SessionSummary } from '../header.js'
import type { SessionId } from '../ids.js'
import type { SessionEvent } from '../log/events.js'
import type { storedEvent, storedLineOf } from '../log/stored-event.js'

/**
 * Hears each stored event as it is read back; what it returns (a promise) paces the read. A backend
 * that stores events as JSON text lends the text each event was parsed from during the call
 * ({@link storedLineOf}).
 */
export type StoredEventListener = (event: SessionEvent, header: SessionHeader) => void | Promise<void>

/**
 * Hears a session's events in order while it is read without being opened: `true` (or a promise of
 * it, awaited before the next event) goes on, `false` stops.
 */
export type StoredEventVisitor = (event: SessionEvent, header: SessionHeader) => boolean | Promise<boolean>

/**
 * What the store asks of a persistence backend (service `ctx.persistence`) to bring sessions back.
 * Writing never goes through here: backends persist through the store's lifecycle events.
 */
export interface SessionPersistence {
  /**
   * Opens a persisted session for writing by this process and reads it whole: header and events,
   * after any torn tail was repaired. Resolves undefined when no such session is stored. The
   * backend holds the session (lock, writer) until `session/disposed` or `release`. A backend that
   * streams calls `onEvent` for each event as it is read, in order, before resolving (none after a
   * bad line; awaiting what it returns before reading much further); one that does not is fine
   * too: the store then goes through the events it resolved with. An exception from `onEvent`
   * stops the read and rejects `open` with it, after letting go of the session. The resolved
   * `events` become the session's log: where `onEvent` heard an event whole, the backend may
   * resolve a stand-in for it that reads its data back on demand ({@link storedEvent}), so a
   * loaded session does not hold every body in memory.
   */
  open(
    id: SessionId,
    onEvent?: StoredEventListener,
  ): Promise<{ header: SessionHeader; events: SessionEvent[] } | undefined>
  /**
   * Reads a stored session without opening it (no lock taken, nothing repaired, not made live):
   * the header, and the events with `seq >= from` handed to `visit` in order until it stops or the
   * complete lines end (a torn tail is not read; events before `from` are not parsed). Resolves
   * the header, or undefined when no such session is stored. A bad line rejects with
   * `CORRUPT_SESSION`. Optional: a backend without it cannot show what a subagent did in its
   * parent's replay.
   */
  visit?(id: SessionId, from: number, visit: StoredEventVisitor): Promise<SessionHeader | undefined>
  /** Lets go of a session that `open` returned but the store refused (it failed validation). */
  release(id: SessionId): Promise<void>
  /** Whether a session is stored, without reading it. */
  exists(id: SessionId): Promise<boolean>
  /**
   * Stored sessions, most recent activity first, read from headers or a catalog, never whole logs.
   * `live(id)` is the current summary of a session live in this process: it stands in for the
   * stored one, in the order of its current activity. Without `live`, none is live.
   */
  list(options: ListOptions, live?: (id: SessionId) => SessionSummary | undefined): Promise<SessionPage>
  /** Removes a stored session (which must not be live). Resolves false when there was none. */
  remove(id: SessionId): Promise<boolean>
  /** Resolves once every queued write, flush and file close has finished. */
  idle(): Promise<void>
  /**
   * The pen: the right to append to a session, held by one process at a time and only while it
   * appends (not while the session is merely open). Takes it for this process, synchronously: a
   * lock file, then one `lstat` checking that the stored log still ends where this process's view
   * ends (the expected version). Returns the events other processes appended since that view,
   * parsed but unchecked (the store checks them), in order: [] when the view is current or the pen
   * was held already. Throws `SESSION_LOCKED` (`data.pid`) while another live process holds it,
   * `SESSION_CHANGED` when the file was replaced or removed under this process. Optional: a
   * backend without pens is used by one process only.
   */
  takePen?(id: SessionId): SessionEvent[]
  /**
   * Takes the pen as `takePen` does, and resolves once it is held, for a backend that must ask
   * another party for it (a database's lock): with the events other writers appended since this
   * process's view, in order. Rejects with `SESSION_LOCKED` or `SESSION_CHANGED` without failing
   * the session (nothing was written; the pen is not held). Callers about to do costly work (a
   * model's turn) take the pen this way so that a refusal comes first. Optional: without it,
   * `takePen` is used.
   */
  acquirePen?(id: SessionId): Promise<SessionEvent[]>
  /**
   * Lets the pen go once everything appended so far is durable (written and fdatasynced); a
   * `takePen` before that keeps it. Rejects with a write or fsync failure (the pen is let go).
   */
  releasePen?(id: SessionId): Promise<void>
  /**
   * Without the pen: the events other processes appended to a live session's stored log since this
   * process's view (complete lines only; nothing repaired, nothing waited for), in order. [] while
   * this process holds the pen.
   */
  refresh?(id: SessionId): SessionEvent[]
  /**
   * Calls `onChange` soon (within milliseconds where the store can be watched, else within a poll)
   * after another process may have appended to, replaced or removed the stored log of `id`, or
   * taken or let go of its pen (where pens are reported); the store then looks (`refresh`, or a
   * pen it waits for). Reports may be spurious (this process's own writes) and are
   * coalesced. Returns the function that stops. Optional: without it, what other processes append
   * is taken in only when this process next opens or writes the session.
   */
  watch?(id: SessionId, onChange: () => void): () => void
  /**
   * True when `watch` also reports another process letting go of the pen of `id` (the JSONL
   * store's lock file going away, a database's notice): a prompt then waits for that pen instead
   * of being refused (`SessionStore.awaitPen`), trying it again at each report and every
   * `PEN_RETRY_MS` (a holder that died says nothing). Absent or false: the busy pen is refused
   * (`SESSION_LOCKED`).
   */
  readonly watchesPens?: boolean
  /**
   * The store's notice board, where the processes that have a session open tell each other what
   * the log does not hold: who is attached there, which questions their turns wait on, and the
   * answers offered to them. Optional: without it, each process knows only its own clients.
   */
  readonly board?: SessionBoard | undefined
  /**
   * What a turn streams before its events are appended (a model's text as it comes), passed to
   * the other processes that have the session open; changes are reported by `watch`. Optional:
   * without it, other processes see a turn's text when its message is appended.
   */
  readonly streams?: SessionStreams | undefined
}

/** What one process says about a session on the board. */
export interface BoardNote {
  /** How many clients of that process have the session open, and the names of those that gave one. */
  readonly attached: number
  readonly clients: readonly string[]
  /** The questions its turn waits on, which a client of another process may answer. */
  readonly questions: readonly BoardQuestion[]
  /** How its last questions were settled (newest last), for the processes that asked them too. */
  readonly outcomes: readonly { readonly question: string; readonly outcome: unknown }[]
  /**
   * A cancel one of its clients asked for, of the turn another process runs: named by the turn's
   * number and its `turn/start` event (seq and time), so that it never reaches a later turn.
   */
  readonly cancel?: BoardCancel
  /** Its last URL elicitations (question ids) whose completion its MCP server told (newest last). */
  readonly completed?: readonly string[]
}

/** The turn a cancel on the board is for: its number, and the seq and time of its `turn/start`. */
export interface BoardCancel {
  readonly turn: number
  readonly seq: number
  readonly time: string
}

/** A question on the board: its id (unique across processes) and the request it is. */
export interface BoardQuestion {
  readonly question: string
  readonly method: string
  readonly params: unknown
}

/** An answer offered to a question on the board: the client's result and who answered. */
export interface BoardAnswer {
  readonly result: unknown
  readonly by?: string
}

/**
 * See `SessionPersistence.board`. Changes are reported by `SessionPersistence.watch`. A backend
 * that asks another party (a database) answers `read`, `offer` and `answers` asynchronously; one
 * on local files answers at once, under the same signatures.
 */
export interface SessionBoard {
  /**
   * Replaces what this process says about `id`; undefined takes it down. Synchronous for the
   * caller: a backend that writes elsewhere keeps the order of the posts and logs a failure.
   */
  post(id: SessionId, note: BoardNote | undefined): void
  /**
   * What the other live processes say about `id` (notes of processes that are gone are dropped),
   * each with the process or host that posted it. The note is kept as it was posted (fields this
   * build does not know included). Rejects when the board cannot be read (nothing is dropped then).
   */
  read(id: SessionId): Promise<{ from: string; note: BoardNote }[]>
  /** Offers an answer to `question`: false when one was offered first (that one counts). */
  offer(id: SessionId, question: string, answer: BoardAnswer): Promise<boolean>
  /** The answers offered to these questions of this process, each handed out once. */
  answers(id: SessionId, questions: readonly string[]): Promise<{ question: string; answer: BoardAnswer }[]>
}

/** One update a turn streamed before its event `seq` was appended; `n` counts from 0 per `seq`. */
export interface StreamedChunk {
  readonly seq: number
  readonly n: number
  readonly update: unknown
}

/** See `SessionPersistence.streams`. */
export interface SessionStreams {
  /** Passes on a chunk of this process's turn of `id`. */
  publish(id: SessionId, chunk: StreamedChunk): void
  /** This process's turn of `id` ended: what it streamed is gone. */
  end(id: SessionId): void
  /**
   * The chunks of the turns of these processes (as the board names them: `from` of its notes) not
   * read before, in the order each wrote them.
   */
  read(id: SessionId, writers: readonly string[]): StreamedChunk[]
  /** Forgets how far the streams of `id` were read (nobody here follows it any more). */
  forget(id: SessionId): void
  /**
   * Calls `onChunk` when another writer's chunk of `id` arrives; returns the function that stops.
   * Absent: `SessionPersistence.watch` reports them (the JSONL store's stream files).
   */
  watchChunks?(id: SessionId, onChunk: () => void): () => void
}
