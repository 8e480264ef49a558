#!/usr/bin/env bash
# The steps of the repository's GitHub Action (action.yml), as one script a test can run too:
#
#   audit.sh install   make a virtual environment of its own and install the tool there (the server's Python is
#                      left alone: the tool's dependencies never meet the server's)
#   audit.sh audit     audit the server; write SARIF and the markdown worksheet, append the summary and worksheet
#                      to $GITHUB_STEP_SUMMARY, and set the outputs; exit 0 whatever the findings, so the SARIF is
#                      uploaded before the gate fails the job (exit 2 only when nothing could be audited: bad inputs)
#   audit.sh gate      exit with the audit's exit code: 1 when a HIGH rule of the gate's profile failed or the
#                      server could not be audited, 3 when none failed but some were not checked (--no-tool-calls)
#
# Inputs come as environment variables (action.yml maps its inputs to them):
#   HB_COMMAND   the server's command, as shell words (with {workspace} where it takes its folder), or
#   HB_URL       the MCP endpoint of a running Streamable HTTP server (on loopback)
#   HB_GATE      spec | baseline | full (default baseline)
#   HB_RULES     only these rule ids, separated by spaces (default: every automated rule)
#   HB_LOCATION  the file SARIF results point at, relative to the repository root (default: the root)
#   HB_ARGS      more audit arguments, as shell words (--root ., --no-tool-calls, --timeout 600 ...)
#   HB_VERSION   the tool version to install (default: this action's own, from content/handbook.yml beside it)
#   HB_PACKAGE   a pip requirement to install instead (a wheel's path, for a test)
#   HB_PYTHON    the Python to make the tool's virtual environment with (default python3)
#   HB_OUT       where the environment and the files go (default $RUNNER_TEMP/mcp-handbook)
#   HB_EXIT      for `gate`: the exit code `audit` reported
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${HB_OUT:-${RUNNER_TEMP:-/tmp}/mcp-handbook}"
VENV="$OUT/venv"
SUMMARY_LIMIT=900000   # GitHub takes at most 1 MiB of summary per step

say() { printf 'mcp-handbook action: %s\n' "$*" >&2; }

set_output() {
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"; fi
}

action_version() {
  # The doctrine's version is the package's (setup.py): the action at tag vX.Y.Z installs mcp-handbook==X.Y.Z.
  sed -n -E 's/^version:[[:space:]]*"?([0-9]+\.[0-9]+\.[0-9]+)"?.*/\1/p' "$HERE/content/handbook.yml" | head -n 1
}

install() {
  local requirement="${HB_PACKAGE:-}"
  if [[ -z "$requirement" ]]; then
    local version="${HB_VERSION:-$(action_version)}"
    [[ -n "$version" ]] || { say "no version to install: set the version input"; exit 2; }
    requirement="mcp-handbook==$version"
  fi
  mkdir -p "$OUT"
  "${HB_PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$requirement"
  "$VENV/bin/mcp-handbook" --version
}

split_words() {
  # Into the array named $1, the shell words of $2 (input $3), split by Python's shlex: never eval'd by a shell.
  local code='import shlex, sys; sys.stdout.write("".join(w + "\0" for w in shlex.split(sys.argv[1])))'
  "$VENV/bin/python" -c "$code" "$2" > "$OUT/words" 2> "$OUT/words.err" || {
    say "the $3 input is not shell words: $(tail -n 1 "$OUT/words.err")"; exit 2; }
  mapfile -d '' -t "$1" < "$OUT/words"
}

summary() {
  # $1 the audit's printed lines, $2 the markdown worksheet: the job summary, escaped and bounded.
  "$VENV/bin/python" - "$1" "$2" "$SUMMARY_LIMIT" <<'PY'
import html, pathlib, sys
printed, sheet, limit = pathlib.Path(sys.argv[1]).read_text("utf-8"), pathlib.Path(sys.argv[2]), int(sys.argv[3])
text = sheet.read_text("utf-8") if sheet.is_file() else "(no worksheet was written)"
if len(text.encode()) > limit:
    text = text.encode()[:limit].decode("utf-8", "ignore") + "\n\n… (cut to fit the job summary; the whole worksheet is the step's `markdown` output file)\n"
sys.stdout.write("## MCP server audit (mcp-handbook)\n\n<pre>" + html.escape(printed) + "</pre>\n\n"
                 "<details><summary>The worksheet</summary>\n\n" + text + "\n\n</details>\n")
PY
}

audit() {
  [[ -x "$VENV/bin/mcp-handbook" ]] || { say "the tool is not installed: run \`audit.sh install\` first"; exit 2; }
  local -a argv=(audit -o "$OUT/audit.sarif" -o "$OUT/audit.md" --gate "${HB_GATE:-baseline}")
  local -a extra=() rules=() command=()
  [[ -n "${HB_LOCATION:-}" ]] && argv+=(--location "$HB_LOCATION")
  split_words rules "${HB_RULES:-}" rules
  for rule in "${rules[@]}"; do argv+=(--rule "$rule"); done
  split_words extra "${HB_ARGS:-}" args
  argv+=("${extra[@]}")
  if [[ -n "${HB_URL:-}" && -n "${HB_COMMAND:-}" ]]; then say "give the server's command or its url, not both"; exit 2; fi
  if [[ -n "${HB_URL:-}" ]]; then
    argv+=(--url "$HB_URL")
  else
    split_words command "${HB_COMMAND:-}" command
    (( ${#command[@]} )) || { say "no server to audit: set the command input (or url)"; exit 2; }
    argv+=(-- "${command[@]}")
  fi
  rm -f "$OUT/audit.sarif" "$OUT/audit.md"
  local code=0
  "$VENV/bin/mcp-handbook" "${argv[@]}" > "$OUT/printed.txt" || code=$?
  cat "$OUT/printed.txt"
  if [[ ! -f "$OUT/audit.sarif" ]]; then
    say "the audit wrote nothing (exit $code): see the message above"
    exit 2
  fi
  if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then summary "$OUT/printed.txt" "$OUT/audit.md" >> "$GITHUB_STEP_SUMMARY"; fi
  set_output sarif "$OUT/audit.sarif"
  set_output markdown "$OUT/audit.md"
  set_output exit-code "$code"
  say "audit exit code $code (the gate step fails the job by it, after the SARIF upload)"
}

gate() {
  local code="${HB_EXIT:-}"
  [[ "$code" =~ ^[0-9]+$ ]] || { say "no exit code from the audit step"; exit 2; }
  if (( code == 0 )); then say "no HIGH rule of the ${HB_GATE:-baseline} profile failed"
  elif (( code == 3 )); then say "the gate failed (exit 3): HIGH rules were not checked (--no-tool-calls), so not known to pass"
  else say "the gate failed (exit $code)"; fi
  exit "$code"
}

case "${1:-}" in
  install|audit|gate) "$1" ;;
  *) say "usage: audit.sh install|audit|gate"; exit 2 ;;
esac
