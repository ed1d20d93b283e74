export type EditErrorKind = "not-found" | "multiple" | "too-large" | "no-change" | "empty-old"

/** An edit the engine refuses, with a message written for the model (what happened + how to fix). */
export class EditError extends Error {
  readonly kind: EditErrorKind
  constructor(kind: EditErrorKind, message: string) {
    super(message)
    this.name = "EditError"
    this.kind = kind
  }
}
