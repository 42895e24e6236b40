/**
 * Every test file starts with the machine's own git config out of reach: toolboxes carry the user's settings
 * that change answers (line endings, the global ignore file...) from this process's environment, as the user's
 * own git would, and this machine's ~/.gitconfig must not change what a test sees. The fixtures' plain git runs
 * with the same settings (`fixtureEnv`). Tests of the user's config give a toolbox their own `userConfig`.
 */
process.env.GIT_CONFIG_GLOBAL = "/dev/null";
process.env.GIT_CONFIG_NOSYSTEM = "1";
