/**
 * The end of a request, for the work it started: its deadline answered 503, or its connection
 * closed (after the answer, or a client gone). Work not begun yet is then not begun, and work under
 * way rolls back rather than commits. (Not an AbortController: aborting one builds a DOMException
 * with its stack trace, on every request.)
 */
export class RequestEnd {
  private done = false;
  private listeners: (() => void)[] | undefined;

  get ended(): boolean {
    return this.done;
  }

  /** Runs `listener` when the request ends (at once if it has). */
  onEnd(listener: () => void): void {
    if (this.done) {
      listener();
      return;
    }
    this.listeners ??= [];
    this.listeners.push(listener);
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) listener();
  }
}
