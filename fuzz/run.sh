#!/usr/bin/env bash
# Runs one fuzz target for a while with AFL++ (docs/FUZZING.md):
#
#   fuzz/run.sh TARGET SECONDS     TARGET: parse, check, eval, step, automap or repl
#
# Installs cargo-afl (with its AFL++) if missing, builds the targets,
# then fuzzes from the seeds (fuzz/seeds), or resumes the campaign already
# in fuzz/out/TARGET. Prints the campaign's figures and the findings, and
# exits 1 if there is any: a crash (panic, abort, stack overflow) or a
# hang (an input that ran past the timeout below).
set -euo pipefail
cd "$(dirname "$0")"
target=${1:-}
seconds=${2:-}
# The fuzzer's timeout per input, in ms: far above the targets' own budgets
# (src/lib.rs), so that only a run that ignores them counts as a hang.
case $target in
  parse) timeout=2000 ;;
  check) timeout=5000 ;;
  eval | step | automap) timeout=10000 ;;
  repl) timeout=20000 ;;
  *) echo "usage: fuzz/run.sh parse|check|eval|step|automap|repl SECONDS" >&2; exit 2 ;;
esac
[[ $seconds =~ ^[0-9]+$ ]] || { echo "SECONDS must be a number" >&2; exit 2; }

if ! cargo afl --version >/dev/null 2>&1; then
  cargo install cargo-afl --locked
fi
# Installing cargo-afl builds AFL++ for the current toolchain; after a
# toolchain update it must be built again (an error if it already is).
cargo afl config --build >/dev/null 2>&1 || true
cargo afl build --release --bin "$target"

out=out/$target
seeds=seeds
if [[ -f $out/default/fuzzer_stats ]]; then
  seeds=- # resume
fi
mkdir -p "$out"
# No CPU governor or core-dump set-up to insist on (CI containers cannot
# change them), no screen UI (the log is read by people and CI), and one
# process whatever the cores (other work shares the machine). A seed that
# crashes stops afl-fuzz before it starts, which fails the run below: a
# crash in the seeds is a finding too.
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
  AFL_NO_AFFINITY=1
status=0
cargo afl fuzz -i "$seeds" -o "$out" -x futhark.dict -t "$timeout" -V "$seconds" \
  -- "target/release/$target" >"$out/log" 2>&1 || status=$?

stats=$out/default/fuzzer_stats
if [[ ! -f $stats ]]; then
  tail -n 40 "$out/log"
  echo "fuzz $target: afl-fuzz did not start (exit $status)" >&2
  exit 1
fi
field() { sed -n "s/^$1 *: //p" "$stats"; }
crashes=$(field saved_crashes)
hangs=$(field saved_hangs)
echo "fuzz $target: $(field run_time) s, $(field execs_done) executions" \
  "($(field execs_per_sec)/s), $(field corpus_count) inputs in the corpus," \
  "edges $(field edges_found)/$(field total_edges) ($(field bitmap_cvg))," \
  "stability $(field stability), $crashes crashes, $hangs hangs"
if [[ $crashes != 0 || $hangs != 0 ]]; then
  for f in "$out"/default/crashes/id* "$out"/default/hangs/id*; do
    [[ -f $f ]] || continue
    echo "--- $f"
    head -c 2000 "$f"
    echo
  done
  echo "fuzz $target: findings in fuzz/$out/default/{crashes,hangs};" \
    "reproduce with: fuzz/target/release/$target < FILE" >&2
  exit 1
fi
