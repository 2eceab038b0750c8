/**
 * What Context Pipeline: Open Settings (the gear in the chat view's title bar) opens the
 * Settings editor on: this extension's settings only, by its id (`publisher.name` of
 * package.json). VS Code-free, so a unit test compares it with the manifest.
 */
export const SETTINGS_QUERY = '@ext:context-pipeline.context-pipeline';
