// Properties the real-VS-Code tests set on a page's window from inside `evaluate` callbacks,
// declared so test/vscode/tsconfig.json type-checks those callbacks.
export {};

declare global {
  interface Window {
    /** gestures.mjs transcriptSettled(): the last layout key seen and how many frames it held. */
    __cpSettle?: { key: string; same: number };
    /** gestures.mjs recordWhenShown(): which keys' elements have shown their pattern. */
    __cpSeen?: Record<string, boolean>;
    /** xss.test.mjs: set only if an injected script ran. */
    __xss?: unknown;
  }
}
