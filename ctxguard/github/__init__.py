"""GitHub's REST API, read only where an entry asks for it (`source: github-run`): a workflow
run's jobs and their logs (ctxguard.github.run) over a small client (ctxguard.github.api) that
keeps the token to the API's own origin."""
