#!/bin/bash
# The GPU checks and figures of docs/GPU.md in one run, for a machine with
# a GPU that has no network and no Rust toolchain: it takes a built urchin
# binary and, if the machine lacks an OpenCL ICD loader, the Debian package
# of one (`apt-get download ocl-icd-libopencl1` on a machine with a network).
#
#   bench/gpu.sh [URCHIN] [OUT]      (defaults: target/release/urchin, /tmp/urchin-gpu)
#
# Environment: GPU_DEBS, a folder of .deb files to unpack (default .gpu);
# GPU_STEP_SECONDS, the limit of each step (default 150); GPU_DEVICE, the
# device to use (default: the first GPU `:device` lists; `0:0` tries the
# script on a CPU driver); GPU_TEST_PATHS, what `urchin test` runs on the
# device (default: examples tests/programs); GPU_PROPTESTS, the built
# binary of tests/gpu.rs (`cargo test --release --test gpu --no-run`), whose
# property tests then run with URCHIN_PROPTEST_SCALE=GPU_PROPTEST_SCALE
# (default 10) on the device `auto` picks; GPU_MORE_TESTS, paths that
# `urchin test` runs on the device after the figures, as a last step
# (Futhark's own tests, say, whose kernels take a while to build).
#
# It writes to OUT: device.txt (what OpenCL shows), test.txt (the test
# paths with every region forced onto the device), proptest.txt (device
# against evaluator on generated SOAC nests), bench.txt (sum of squares,
# k-means at 10^5 and 10^6 points, GMM, MLP, `hist max`: evaluator and device side by
# side), jax.txt (JAX's `jit` of the same, bench/jax_ref.py, where JAX
# is installed), more.txt (the GPU_MORE_TESTS, likewise forced) and
# summary.txt (the exit status of each step). It exits 1 when any step
# failed (after running them all), so that a caller sees the failure.
set -u
bin=$(realpath "${1:-target/release/urchin}")
out=${2:-/tmp/urchin-gpu}
debs=${GPU_DEBS:-.gpu}
limit=${GPU_STEP_SECONDS:-150}
mkdir -p "$out"
: >"$out/summary.txt"

failed=0
step() {
    local name=$1 file=$2 code
    shift 2
    timeout "$limit" "$@" >"$file" 2>&1
    code=$?
    echo "$name: exit $code" >>"$out/summary.txt"
    [ "$code" = 0 ] || failed=1
}

# An ICD loader unpacked beside the system, not over it.
if ! ldconfig -p | grep -q 'libOpenCL\.so\.1'; then
    for f in "$debs"/*.deb; do
        [ -e "$f" ] && dpkg -x "$f" /tmp/ocl
    done
    export LD_LIBRARY_PATH=/tmp/ocl/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
# NVIDIA's OpenCL library, where the driver installed no ICD file for it.
if ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
    lib=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libnvidia-opencl.so.1' -print 2>/dev/null | head -n 1)
    lib=${lib:-$(find /usr/local/nvidia -name 'libnvidia-opencl.so.1' 2>/dev/null | head -n 1)}
    if [ -n "$lib" ]; then
        mkdir -p /tmp/ocl/vendors
        echo "$lib" >/tmp/ocl/vendors/nvidia.icd
        echo "NVIDIA OpenCL library: $lib" >>"$out/summary.txt"
        export OCL_ICD_VENDORS=/tmp/ocl/vendors
    fi
fi
{
    echo "ICD loader: $(ldconfig -p | grep -m1 'libOpenCL\.so\.1' || echo "${LD_LIBRARY_PATH:-none}")"
    echo "ICD files: $(cat /etc/OpenCL/vendors/*.icd "${OCL_ICD_VENDORS:-/nonexistent}"/*.icd 2>/dev/null | tr '\n' ' ')"
    nvidia-smi -L 2>&1
} >"$out/device.txt"
echo ':device' | timeout 60 "$bin" repl >>"$out/device.txt" 2>&1
code=$?
echo "device: exit $code" >>"$out/summary.txt"
[ "$code" = 0 ] || failed=1
gpu=${GPU_DEVICE:-$(grep -m1 -E '^ +[0-9]+:[0-9]+ .*\(GPU' "$out/device.txt" | awk '{print $1}')}
echo "GPU: ${gpu:-none found}" >>"$out/summary.txt"
[ -n "$gpu" ] || exit 1

# Correctness: every region on the device, whatever its size.
# shellcheck disable=SC2086 # the paths are a list
URCHIN_GPU_THRESHOLD=0 step test "$out/test.txt" "$bin" test --device "$gpu" ${GPU_TEST_PATHS:-examples tests/programs}
if [ -n "${GPU_PROPTESTS:-}" ]; then
    # The test over the repository's programs is the step above.
    URCHIN_REQUIRE_OPENCL=1 URCHIN_PROPTEST_SCALE=${GPU_PROPTEST_SCALE:-10} \
        step proptest "$out/proptest.txt" "$GPU_PROPTESTS" --skip programs_examples_and_corpus
fi

# The figures: the examples' own datasets, and k-means at 10^6 points.
work=$(mktemp -d)
cp examples/kmeans.fut "$work/kmeans_1m.fut"
cp examples/kmeans.in "$work/"
cat >>"$work/kmeans_1m.fut" <<'EOF'

-- ==
-- entry: kmeans_cost kmeans_grad
-- compiled random input { [1000000][8]f64 [16][8]f64 }
EOF
step bench "$out/bench.txt" "$bin" bench --device "$gpu" --runs 10 \
    examples/sumsq.fut "$work/kmeans_1m.fut" examples/gmm.fut examples/mlp.fut examples/histmax.fut
rm -r "$work"
if python3 -c 'import jax' 2>/dev/null; then
    step jax "$out/jax.txt" python3 "$(dirname "$0")/jax_ref.py"
fi
if [ -n "${GPU_MORE_TESTS:-}" ]; then
    # shellcheck disable=SC2086
    URCHIN_GPU_THRESHOLD=0 step more "$out/more.txt" "$bin" test --device "$gpu" $GPU_MORE_TESTS
fi
cat "$out/summary.txt"
exit "$failed"
