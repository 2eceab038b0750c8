/** The API VS Code injects into a webview (only what this code uses). */
export interface VsCodeApi<State> {
  postMessage(message: unknown): void;
  getState(): State | undefined;
  setState(state: State): void;
}

declare function acquireVsCodeApi<State>(): VsCodeApi<State>;

/** Acquires the VS Code API once (it may only be acquired once per webview). */
export function vscodeApi<State>(): VsCodeApi<State> {
  return acquireVsCodeApi<State>();
}
