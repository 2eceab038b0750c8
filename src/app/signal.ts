/** A minimal event source (the app layer has no vscode.EventEmitter). */
export class Signal<T = void> {
  private readonly listeners = new Set<(value: T) => void>();

  /** Calls `listener` on every fire until the returned function is called. */
  on(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls every listener with `value`, in subscription order. */
  fire(value: T): void {
    for (const l of [...this.listeners]) l(value);
  }

  /** Drops every listener. */
  clear(): void {
    this.listeners.clear();
  }
}
