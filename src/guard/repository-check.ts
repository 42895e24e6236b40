/**
 * The repository half of the classifier: whether a read command would run a program the repository's own
 * config names (`git status` runs `core.fsmonitor`, `git diff` a textconv or clean filter...). It reads the
 * repository exactly as the tools do, through discovery and the one config scan (includes followed, checked-out
 * submodules included), so what the hook allows and what the tools neutralise cannot disagree.
 */
import { GitctxError } from "../errors.js";
import { GitCaches } from "../git/caches.js";
import { discoverRepository } from "../git/discover.js";
import { Repository } from "../git/repository.js";
import { GitRunner } from "../git/run.js";
import { classifyCommand, type Classification, type ClassifyOptions, type ExecutableSetting, type RepositoryFacts } from "../safety/classify.js";
import { executableConfig, isPartialClone, LAZY_FETCH_CONFIG, READ_RELEVANT_CONFIG, settingDisabled } from "../safety/git-tables.js";

export interface InspectOptions {
  /** Per git process, in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Inspect a repository owned by another user (git itself would refuse to read it). */
  trustRepository?: boolean;
}

/**
 * Lists the settings of the repository containing `root` (its config with includes followed, and the configs
 * of its checked-out submodules, which `git status` and `git diff` also read) that name a program a read
 * command may run. Never throws for a repository problem: it is reported in `problem`, and reads then `ask`.
 */
export async function inspectRepository(root: string, options: InspectOptions = {}): Promise<RepositoryFacts> {
  const trust = options.trustRepository === true;
  const runner = new GitRunner(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
  const caches = new GitCaches(runner);
  try {
    const paths = await discoverRepository(root, trust);
    const repo = await Repository.open(runner, caches, paths, trust);
    await repo.dispose();
    const partialClone = isPartialClone(repo.settings.filter((setting) => setting.scope === "local"));
    const settings: ExecutableSetting[] = [];
    for (const setting of repo.settings) {
      const what = executableConfig(setting.key);
      if (what === undefined || settingDisabled(setting.key, setting.value)) continue;
      const relevant =
        READ_RELEVANT_CONFIG.some((pattern) => pattern.test(setting.key)) || (partialClone && LAZY_FETCH_CONFIG.some((pattern) => pattern.test(setting.key)));
      if (relevant) settings.push({ key: setting.key, value: setting.value, scope: setting.scope, what });
    }
    return { root: paths.root, executableSettings: settings };
  } catch (error) {
    if (error instanceof GitctxError) return { root, executableSettings: [], problem: error.message };
    throw error;
  } finally {
    await caches.invalidate("privateIndex");
    runner.close();
  }
}

export interface RepositoryClassifyOptions extends Omit<ClassifyOptions, "repository">, InspectOptions {
  /** The directory the command line runs in; the repository containing it is inspected. */
  root: string;
}

/**
 * `classifyCommand` plus the repository check: a read command is `allow` only when the repository's config
 * (includes followed, submodules included) names no program a read could run. The repository is inspected
 * only when the command line has a read that would otherwise be allowed.
 */
export async function classifyCommandInRepository(commandLine: string, options: RepositoryClassifyOptions): Promise<Classification> {
  const base: ClassifyOptions = options.ignoreNonGit === undefined ? {} : { ignoreNonGit: options.ignoreNonGit };
  const pure = classifyCommand(commandLine, base);
  if (!pure.invocations.some((inv) => inv.read && inv.verdict === "allow")) return pure;
  const inspect: InspectOptions = {};
  if (options.timeoutMs !== undefined) inspect.timeoutMs = options.timeoutMs;
  if (options.trustRepository !== undefined) inspect.trustRepository = options.trustRepository;
  const repository = await inspectRepository(options.root, inspect);
  return classifyCommand(commandLine, { ...base, repository });
}
