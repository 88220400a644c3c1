#!/usr/bin/env bash
# `oma-mcp check` for the action, one reading of the servers for every report: GitHub
# annotations on stdout (on the snapshot files, at each item's line), the Markdown report
# (worst changes first) appended to the job summary ($GITHUB_STEP_SUMMARY), SARIF when asked,
# and the counts and exit code as step outputs ($GITHUB_OUTPUT). Exits with check's code: 0
# clean, 1 drift at or above INPUT_FAIL_ON, 2 an error (the summary says so too).
#
# It runs from the repository root with the manifest under INPUT_WORKING_DIRECTORY (the
# manifest's relative paths start at its own folder), so every annotation names its file as
# GitHub does: relative to the repository root.
#
# Environment: INPUT_WORKING_DIRECTORY, INPUT_MANIFEST, INPUT_FAIL_ON, INPUT_SARIF
# (true/false), INPUT_PROBE (true/false), RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY.
set -euo pipefail

manifest="${INPUT_MANIFEST:-oma-mcp.toml}"
if [[ -n "${INPUT_WORKING_DIRECTORY:-}" && "$INPUT_WORKING_DIRECTORY" != . ]]; then
  manifest="${INPUT_WORKING_DIRECTORY%/}/$manifest"
fi

out="$(mktemp -d "${RUNNER_TEMP:-/tmp}/oma-mcp-check.XXXXXX")"
args=(check --manifest "$manifest" --fail-on "${INPUT_FAIL_ON:-breaking}"
  --format github --output "json=$out/drift.json" --output "markdown=$out/drift.md")
if [[ "${INPUT_PROBE:-false}" == true ]]; then
  args+=(--probe)
fi
if [[ "${INPUT_SARIF:-false}" == true ]]; then
  args+=(--output "sarif=$out/drift.sarif")
fi

set +e
oma-mcp "${args[@]}"
code=$?
set -e

summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
if [[ -s "$out/drift.md" ]]; then
  cat "$out/drift.md" >> "$summary"
else
  echo "### MCP drift: not checked" >> "$summary"
  echo >> "$summary"
  echo "\`oma-mcp check\` exited with $code before it wrote a report; its error is in the job log." >> "$summary"
fi

# The summary's counts, from the JSON report (absent when check failed before writing it).
count() {
  sed -n "s/^    \"$1\": \([0-9]*\).*/\1/p" "$out/drift.json" 2> /dev/null | tail -n 1
}
{
  echo "breaking=$(count breaking)"
  echo "warning=$(count warning)"
  echo "info=$(count info)"
  echo "exit-code=$code"
  if [[ -s "$out/drift.sarif" ]]; then
    echo "sarif=$out/drift.sarif"
  fi
} >> "${GITHUB_OUTPUT:-/dev/null}"
exit "$code"
