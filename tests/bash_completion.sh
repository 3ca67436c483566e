#!/usr/bin/env bash
# Asks the bash completion (cli/lockcheck.bash-completion) what bash would on TAB, for a few
# command lines, and checks the words it offers.
# Usage: bash_completion.sh COMPLETION_SCRIPT LOCKCHECK_BINARY
set -uo pipefail
source "$1"
binary=$2
failed=0

# expect "WORDS ON THE LINE" WORD-OFFERED [NOT-OFFERED]: completes the last word of the line.
expect() {
  read -r -a COMP_WORDS <<<"$1"
  [[ $1 == *" " ]] && COMP_WORDS+=("")
  COMP_WORDS[0]=$binary
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _lockcheck
  local offered=" ${COMPREPLY[*]} "
  if [[ $offered != *" $2 "* ]]; then
    echo "FAIL: '$1<TAB>' offers [${COMPREPLY[*]}], not $2"
    failed=1
  fi
  if [[ -n ${3:-} && $offered == *" $3 "* ]]; then
    echo "FAIL: '$1<TAB>' offers $3"
    failed=1
  fi
}

expect "lockcheck ren" rename-pin tree-lock
# Neither list's header nor its section headings are models.
expect "lockcheck lkmm-" lkmm-litmus
expect "lockcheck l" list litmus
expect "lockcheck m" merge model
expect "lockcheck che" check-all
expect "lockcheck rename-pin --var" --variant
expect "lockcheck rename-pin --ren" --renames
expect "lockcheck rename-pin --variant no" no-pin log-mutex
expect "lockcheck tree-lock --variant " sibling-order no-pin
expect "lockcheck rename-pin --strategy " optimal-dpor
expect "lockcheck rename-pin --memory-model " lkmm
expect "lockcheck help tre" tree-lock
expect "lockcheck check-all ren" rename-pin
expect "lockcheck check-all rename-pin --fs" --fsyncs
expect "lockcheck check-all --mem" --memory-model
expect "lockcheck check-all --memory-model " lkmm
expect "lockcheck check-all --minimize" --minimize-time
expect "lockcheck help che" check-all
[ "$failed" -eq 0 ] && echo "bash completion: every case offers what it should"
exit "$failed"
