/**
 * Which edits deserve more than a glance: files that make some program run code, change
 * how the editor behaves, or hold secrets. The edit approval card shows the flag and its
 * reason prominently. Pure: paths only, no I/O.
 */
import { secretFileReason } from '../security/secretFiles';

/** What an edit to a file can do beyond changing its text. */
export type PathRiskKind = 'runs-code' | 'changes-settings' | 'holds-secrets';

/** A flagged path: the kind of risk and why, in words for the approval card. */
export interface PathRisk {
  readonly risk: PathRiskKind;
  readonly reason: string;
}

interface RiskRule {
  readonly pattern: RegExp;
  readonly risk: PathRiskKind;
  readonly reason: string;
}

/** Tried in order (the first match wins); each matches the end of a `/`-separated path, case-insensitively. */
const RULES: readonly RiskRule[] = [
  {
    pattern: /(^|\/)\.git\/hooks\/[^/]+$/i,
    risk: 'runs-code',
    reason:
      'a git hook: git runs it by itself on commit, checkout, merge or push (an existing hook keeps its permission to execute)',
  },
  {
    pattern: /(^|\/)\.git\/config$/i,
    risk: 'runs-code',
    reason:
      "git's configuration can make git run programs (core.hooksPath, core.fsmonitor, core.sshCommand, aliases, filters) and can hold credentials",
  },
  {
    pattern: /(^|\/)\.vscode\/tasks\.json$/i,
    risk: 'runs-code',
    reason: 'VS Code tasks run shell commands, some of them automatically when the folder opens',
  },
  {
    pattern: /(^|\/)\.vscode\/launch\.json$/i,
    risk: 'runs-code',
    reason: 'launch configurations run programs (and their pre-launch tasks) when you start debugging',
  },
  {
    pattern: /\.code-workspace$/i,
    risk: 'runs-code',
    reason: 'a workspace file holds settings, tasks and launch configurations that can run code',
  },
  {
    pattern:
      /(^|\/)(\.mcp\.json|\.vscode\/mcp\.json|\.cursor\/mcp\.json|\.windsurf\/mcp\.json|\.gemini\/settings\.json|claude_desktop_config\.json|mcp_config\.json)$/i,
    risk: 'runs-code',
    reason: 'MCP configuration starts the server programs it lists, with the environment it gives them',
  },
  {
    pattern: /(^|\/)\.claude\/settings(\.local)?\.json$/i,
    risk: 'runs-code',
    reason: 'Claude Code settings can define hooks that run shell commands and grant tool permissions',
  },
  {
    pattern: /(^|\/)package\.json$/i,
    risk: 'runs-code',
    reason: 'npm runs the scripts in package.json (install, test, build …) as shell commands',
  },
  {
    pattern: /(^|\/)(GNUmakefile|makefile|[^/]+\.mk)$/i,
    risk: 'runs-code',
    reason: 'make runs its recipes as shell commands',
  },
  { pattern: /(^|\/)\.husky\/[^/]+$/i, risk: 'runs-code', reason: 'a husky git hook: it runs on commit or push' },
  {
    pattern: /(^|\/)\.github\/workflows\/[^/]+\.ya?ml$/i,
    risk: 'runs-code',
    reason: "a GitHub Actions workflow runs in CI, with the repository's secrets",
  },
  {
    pattern: /(^|\/)\.envrc$/i,
    risk: 'runs-code',
    reason: 'direnv runs .envrc in your shell when you enter the folder',
  },
  {
    pattern: /(^|\/)(\.devcontainer\/devcontainer\.json|\.devcontainer\.json)$/i,
    risk: 'runs-code',
    reason: 'dev container configuration runs commands (postCreateCommand …) and sets machine settings',
  },
  {
    pattern: /(^|\/)\.pre-commit-config\.ya?ml$/i,
    risk: 'runs-code',
    reason: 'pre-commit runs the hooks it lists on every commit',
  },
  {
    pattern: /(^|\/)\.git\/modules\/.+\/hooks\/[^/]+$/i,
    risk: 'runs-code',
    reason: "a submodule's git hook: git runs it by itself on commit, checkout, merge or push",
  },
  {
    pattern: /(^|\/)\.git\/modules\/.+\/config$/i,
    risk: 'runs-code',
    reason: "a submodule's git configuration can make git run programs and can hold credentials",
  },
  {
    pattern: /(^|\/)(\.githooks\/[^/]+|lefthook(-local)?\.ya?ml)$/i,
    risk: 'runs-code',
    reason: 'a git hook (or the hooks manager configuration that runs them) on commit or push',
  },
  {
    pattern:
      /(^|\/)(\.gitlab-ci\.ya?ml|\.circleci\/config\.ya?ml|azure-pipelines\.ya?ml|bitbucket-pipelines\.ya?ml|\.travis\.ya?ml|jenkinsfile|\.buildkite\/[^/]+\.ya?ml|\.github\/actions\/.+\/action\.ya?ml)$/i,
    risk: 'runs-code',
    reason: "a CI configuration (or a GitHub action it uses) runs in CI, with the repository's secrets",
  },
  {
    pattern:
      /(^|\/)(\.bashrc|\.bash_profile|\.bash_login|\.profile|\.zshrc|\.zshenv|\.zprofile|\.config\/fish\/config\.fish)$/i,
    risk: 'runs-code',
    reason: 'a shell startup file: your shell runs it every time it starts',
  },
  {
    pattern:
      /(^|\/)(setup\.py|conftest\.py|noxfile\.py|build\.rs|\.cargo\/config(\.toml)?|justfile|taskfile\.ya?ml|\.pnpmfile\.cjs|rakefile|build\.gradle(\.kts)?|settings\.gradle(\.kts)?)$/i,
    risk: 'runs-code',
    reason: 'build and test tools run the code in this file (installing, building or testing the project runs it)',
  },
  {
    pattern:
      /(^|\/)(gemfile|pyproject\.toml|tox\.ini|setup\.cfg|pipfile|cargo\.toml|deno\.jsonc?|composer\.json|pom\.xml|build\.xml|cmakelists\.txt|meson\.build|bazel\.rc|\.bazelrc|workspace(\.bazel)?|build(\.bazel)?|[^/]+\.gemspec|[^/]+\.csproj|directory\.build\.(props|targets)|vite\.config\.[cm]?[jt]s|webpack\.config\.[cm]?[jt]s|jest\.config\.[cm]?[jt]s|vitest\.config\.[cm]?[jt]s|eslint\.config\.[cm]?[jt]s|\.eslintrc\.[cm]?js|babel\.config\.[cm]?js|\.babelrc\.[cm]?js)$/i,
    risk: 'runs-code',
    reason:
      'package managers and build tools run what this file names (dependencies, scripts, plugins, build steps) when the project is installed, built or tested',
  },
  {
    pattern: /(^|\/)(dockerfile|containerfile|[^/]+\.dockerfile|docker-compose(\.[^/]+)?\.ya?ml|compose\.ya?ml)$/i,
    risk: 'runs-code',
    reason: 'container builds and compose run the commands this file lists (and can mount your files and secrets)',
  },
  {
    pattern: /(^|\/)\.idea\/(workspace\.xml|runConfigurations\/[^/]+|tasks\.xml)$/i,
    risk: 'runs-code',
    reason: 'JetBrains IDE configuration holds run configurations and tasks that run programs',
  },
  {
    pattern:
      /(^|\/)(\.claude\/commands\/.+|\.claude\/agents\/.+|\.github\/copilot-instructions\.md|\.github\/instructions\/.+|\.github\/prompts\/.+|gemini\.md|\.cursorrules|\.cursor\/rules(\/.+)?|\.windsurfrules|\.clinerules(\/.+)?|\.roo\/rules(\/.+)?)$/i,
    risk: 'changes-settings',
    reason:
      "another coding agent's instructions or commands: that agent reads them into its instructions (or runs them as commands) in this folder",
  },
  {
    pattern: /(^|\/)(AGENTS\.md|CLAUDE\.md|CLAUDE\.local\.md)$/i,
    risk: 'changes-settings',
    reason:
      "project instructions: this extension (and other coding agents) read it into the agent's instructions for every later request in this folder",
  },
  {
    pattern: /(^|\/)\.vscode\/settings\.json$/i,
    risk: 'changes-settings',
    reason:
      'workspace settings change how VS Code and its extensions behave, including which programs they run (interpreters, formatters, terminal profiles)',
  },
  {
    pattern: /(^|\/)\.vscode\/extensions\.json$/i,
    risk: 'changes-settings',
    reason: 'it makes VS Code recommend extensions to install',
  },
];

/**
 * The risk of editing `path` (workspace-relative or absolute, any separator; trailing dots
 * and spaces of a name ignored, as Windows ignores them), or undefined for an ordinary file.
 * Files that run code come first, then settings, then secrets (the shared rule of
 * core/secretFiles.ts).
 */
export function classifyPathRisk(path: string): PathRisk | undefined {
  // Windows drops trailing dots and spaces from each name: `package.json.` is `package.json`.
  const p = path
    .replace(/\\/g, '/')
    .split('/')
    .map((seg) => (seg === '.' || seg === '..' ? seg : seg.replace(/[. ]+$/, '')))
    .join('/');
  const rule = RULES.find((r) => r.pattern.test(p));
  if (rule) return { risk: rule.risk, reason: rule.reason };
  const secret = secretFileReason(p);
  return secret
    ? {
        risk: 'holds-secrets',
        reason: `${secret}; what is written there may be read by other programs, and the file should not be shared`,
      }
    : undefined;
}

/**
 * The risk of an edit that the user sees as `displayPath` and that lands on `realPath`
 * (they differ through a symbolic link): the shown path's risk, else the real file's, said to
 * be reached through a link.
 */
export function classifyEditRisk(displayPath: string, realPath: string): PathRisk | undefined {
  const shown = classifyPathRisk(displayPath);
  if (shown) return shown;
  const real = classifyPathRisk(realPath);
  return real
    ? { risk: real.risk, reason: `${real.reason} — ${displayPath} leads to it through a symbolic link` }
    : undefined;
}
