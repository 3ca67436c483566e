#!/usr/bin/env bash
# Runs every command a Markdown guide shows and compares what it prints with what the guide
# says it prints, so that the guide cannot rot. In each ```console block, a line "$ COMMAND"
# is run with bash in WORKDIR (stdout and stderr together), and the lines after it, up to the
# next "$ " or the end of the block, are its expected output; a last line "[exit N]" is its
# expected exit code (0 otherwise). Timings vary between runs, so lines starting "elapsed" and
# numbers of seconds ("0.01 s") are compared as placeholders, and so are the "checkpoints" rows,
# whose figures depend on how the threads split the search. A fenced block after a line
# "<!-- excerpt: PATH -->" (PATH relative to the guide) is a listing that must appear in that
# file verbatim, so that the code a guide shows is the code the suite builds.
# Usage: doc_commands.sh GUIDE.md WORKDIR
set -uo pipefail
guide=$1
workdir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Splits the guide's console blocks into scratch/N.cmd and scratch/N.out, and its listings
# marked as excerpts into scratch/N.listing with the path of their file in scratch/N.path.
awk -v dir="$scratch" '
  /^```console[ \t]*$/ { inside = 1; next }
  inside && /^```[ \t]*$/ { inside = 0; next }
  inside && /^\$ / { n++; print substr($0, 3) > (dir "/" n ".cmd"); printf "" > (dir "/" n ".out"); next }
  inside && n { print > (dir "/" n ".out") }
  listing && /^```[ \t]*$/ { listing = 0; next }
  listing { print > (dir "/" l ".listing"); next }
  !inside && /^```/ && match(previous, /^<!-- excerpt: [^ ]+ -->$/) {
    listing = 1; l++; printf "" > (dir "/" l ".listing")
    print substr(previous, 15, length(previous) - 18) > (dir "/" l ".path")
  }
  { previous = $0 }
' "$guide"

passed=0
failed=0
guide_dir=$(dirname "$guide")
for listing in $(ls "$scratch"/*.listing 2>/dev/null | sort -V); do
  n=${listing%.listing}
  first=$(head -n 1 "$listing")
  file="$guide_dir/$(cat "$n.path")"
  if [ ! -f "$file" ]; then
    echo "FAIL: the listing starting \"$first\" is an excerpt of $file, which does not exist"
    failed=$((failed + 1))
  elif [[ "$(cat "$file")" != *"$(cat "$listing")"* ]]; then
    echo "FAIL: the listing starting \"$first\" is not in $file as the guide shows it"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
done

normalize() {
  sed -E -e 's/^elapsed .*/elapsed <time>/' -e 's/^checkpoints .*/checkpoints <figures>/' -e 's/[0-9]+\.[0-9]+ s\b/<seconds>/g' "$1"
}

for cmd_file in $(ls "$scratch"/*.cmd 2>/dev/null | sort -V); do
  n=${cmd_file%.cmd}
  cmd=$(cat "$cmd_file")
  expected_code=0
  if tail -n 1 "$n.out" | grep -Eq '^\[exit [0-9]+\]$'; then
    expected_code=$(tail -n 1 "$n.out" | tr -dc '0-9')
    sed -i '$d' "$n.out"
  fi
  (cd "$workdir" && bash -c "$cmd") >"$n.actual" 2>&1
  code=$?
  if [ "$code" -ne "$expected_code" ]; then
    echo "FAIL: \$ $cmd: exit $code, the guide says $expected_code"
    failed=$((failed + 1))
  elif ! diff -u <(normalize "$n.out") <(normalize "$n.actual") >"$n.diff"; then
    echo "FAIL: \$ $cmd: output differs from the guide (- guide, + actual):"
    cat "$n.diff"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
done
if ! ls "$scratch"/*.cmd >/dev/null 2>&1; then
  echo "FAIL: no console block with a command in $guide"
  exit 1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
