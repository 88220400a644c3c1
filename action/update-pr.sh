#!/usr/bin/env bash
# The action's `update-pr` mode: when `oma-mcp check` finds drift, take new snapshots
# (`oma-mcp snapshot`), commit them to INPUT_BRANCH, push it, and open one pull request (or
# update the open one) whose body is the drift report, through `gh`. Refused on a pull
# request from a fork, whose token must not push. Writes the pull request's URL as the step
# output `pull-request` (empty when nothing changed).
#
# Permissions the job needs: `contents: write` (push the branch) and `pull-requests: write`.
# Environment: INPUT_WORKING_DIRECTORY, INPUT_MANIFEST, INPUT_BRANCH, GH_TOKEN, OMA_MCP_HEAD_REPO and
# OMA_MCP_BASE_REPO (the pull request's head repository and this one), GITHUB_REF_NAME (the
# base branch), RUNNER_TEMP, GITHUB_OUTPUT.
set -euo pipefail

manifest="${INPUT_MANIFEST:-oma-mcp.toml}"
if [[ -n "${INPUT_WORKING_DIRECTORY:-}" && "$INPUT_WORKING_DIRECTORY" != . ]]; then
  manifest="${INPUT_WORKING_DIRECTORY%/}/$manifest"
fi
branch="${INPUT_BRANCH:-oma-mcp/update-snapshots}"
output="${GITHUB_OUTPUT:-/dev/null}"

if [[ -n "${OMA_MCP_HEAD_REPO:-}" && "$OMA_MCP_HEAD_REPO" != "${OMA_MCP_BASE_REPO:-}" ]]; then
  echo "::error title=oma-mcp update-pr::refusing to run on a pull request from the fork $OMA_MCP_HEAD_REPO: update-pr pushes a branch, and a fork's code must not run with a token that can; run it on push or on a schedule"
  exit 2
fi

report="$(mktemp "${RUNNER_TEMP:-/tmp}/oma-mcp-drift.XXXXXX")"
set +e
oma-mcp check --manifest "$manifest" --fail-on info --format markdown > "$report"
code=$?
set -e
if [[ $code -eq 0 ]]; then
  echo "oma-mcp: no drift; nothing to update"
  echo "pull-request=" >> "$output"
  exit 0
fi
if [[ $code -ne 1 ]]; then
  echo "::error title=oma-mcp update-pr::oma-mcp check failed (exit $code); see its error above"
  exit "$code"
fi

oma-mcp snapshot --manifest "$manifest"
git add --all -- '*.snapshot.json'
if git diff --cached --quiet; then
  echo "oma-mcp: the drift leaves every snapshot as it is; nothing to update"
  echo "pull-request=" >> "$output"
  exit 0
fi

base="${GITHUB_REF_NAME:-$(git rev-parse --abbrev-ref HEAD)}"
git switch --quiet --force-create "$branch"
git -c user.name="github-actions[bot]" \
  -c user.email="41898282+github-actions[bot]@users.noreply.github.com" \
  commit --quiet --message "Update MCP snapshots" --message "Taken by oma-mcp snapshot; the drift report is the pull request's body."
git push --quiet --force origin "$branch"

number="$(gh pr list --head "$branch" --base "$base" --state open --json number --jq '.[0].number // empty')"
if [[ -n "$number" ]]; then
  gh pr edit "$number" --body-file "$report"
  url="$(gh pr view "$number" --json url --jq .url)"
else
  url="$(gh pr create --base "$base" --head "$branch" --title "Update MCP snapshots" --body-file "$report")"
fi
echo "oma-mcp: pull request $url"
echo "pull-request=$url" >> "$output"
