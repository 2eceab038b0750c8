/** How the workspace tools' path parameters are described to the model. */

/** The tail of every path parameter's description. */
export const PATH_HELP =
  'relative to the workspace root (an absolute path inside the workspace also works; in a multi-root workspace, start with the folder name, e.g. `api/src/main.ts`)';
