# Sourced by the tests that compare two runs of the lockcheck command byte for byte
# (determinism.sh, checkpoints.sh); they set $binary and $dir.
# run N ARGS...: one run's stdout, exit code and files, kept under $dir/N. Both runs write the
# same paths: the reports record the command line.
run() {
  local n=$1
  shift
  rm -rf "$dir/$n" && mkdir -p "$dir/$n"
  "$binary" "$@" --no-timing -q --json "$dir/run.json" --junit "$dir/run.xml" \
    >"$dir/$n/out" 2>"$dir/$n/err"
  echo $? >"$dir/$n/exit"
  mv "$dir/run.json" "$dir/run.xml" "$dir/$n/"
}
