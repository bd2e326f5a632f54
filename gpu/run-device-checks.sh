#!/usr/bin/env bash
# The device checks, for a machine with an NVIDIA GPU (and no Rust needed there).
#
# Here (any machine with the stable toolchain):
#   gpu/run-device-checks.sh --prepare
#     builds the `cuda` test binary and the bandwidth example (release, feature cuda) and puts
#     them, stripped, in target/device-bin/ (a few MB; they link only glibc/libgcc).
# On the GPU machine, from the repository root, with target/device-bin carried along
# (device tool: command "gpu/run-device-checks.sh", carry ["target/device-bin"], timeout ~300 s):
#   gpu/run-device-checks.sh
#     1. nvidia-smi (driver version, GPU);
#     2. the GPU tests with WEFT_REQUIRE_GPU=1 (a missing driver is then a failure, not a skip;
#        they include the device reductions against the CPU's, bit for bit),
#        then the golden cases of ops.json through the device ops (tests/cuda_golden.rs), then
#        the user-functor kernels of gpu/examples/user-functors (tests/user_ptx.rs);
#     3. the bandwidth report at 2^28 elements (BANDWIDTH_LOG2 to change): device copy, then add,
#        bcast_add, transposed_add, add_scalar, mixed_i64_f32, exp, where as fractions of copy.
#        Aim: add >= 0.85 of copy; bcast_add and add_scalar within 1.1x of add; transposed
#        within 1.5x. Record the table in BENCHMARKS.md;
#     4. the same cases in PyTorch on the same GPU (gpu/torch_bandwidth.py, when python3 has torch);
#     5. compute-sanitizer memcheck over the GPU tests (when the tool is on the PATH).
# Everything is also written to $OUT (the device tool returns that folder) or target/device-report.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"; cd "$root"
bin="$root/target/device-bin"

if [[ "${1:-}" == "--prepare" ]]; then
  set -e
  cargo build --release --features ndarray,serde,cuda --example gpu_bandwidth
  test_bin="$(cargo test --release --features ndarray,serde,cuda --test cuda --no-run --message-format=json 2>/dev/null \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)"
  [[ -x "$test_bin" ]] || { echo "could not find the cuda test binary" >&2; exit 1; }
  golden_bin="$(cargo test --release --features ndarray,serde,cuda --test cuda_golden --no-run --message-format=json 2>/dev/null \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)"
  [[ -x "$golden_bin" ]] || { echo "could not find the cuda_golden test binary" >&2; exit 1; }
  user_bin="$(cargo test --release --features ndarray,serde,cuda --test user_ptx --no-run --message-format=json 2>/dev/null \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)"
  [[ -x "$user_bin" ]] || { echo "could not find the user_ptx test binary" >&2; exit 1; }
  mkdir -p "$bin/golden"
  # The example user functor crate's PTX (needs nightly here; the GPU machine has no Rust).
  gpu/build-user-ptx.sh gpu/examples/user-functors "$bin/user_functors.ptx"
  cp "$user_bin" "$bin/user-ptx-tests"
  cp "$test_bin" "$bin/cuda-tests"
  cp "$golden_bin" "$bin/cuda-golden"
  # The golden cases travel with the binaries (the device machine has no ../shared).
  cp "${WEFT_GOLDEN_DIR:-$root/../shared/golden}"/*.json "$bin/golden/"
  cp target/release/examples/gpu_bandwidth "$bin/gpu_bandwidth"
  strip "$bin/cuda-tests" "$bin/cuda-golden" "$bin/user-ptx-tests" "$bin/gpu_bandwidth" 2>/dev/null || true
  ls -la "$bin"
  echo "carry target/device-bin and run: gpu/run-device-checks.sh"
  exit 0
fi

report="${OUT:-$root/target/device-report}"; mkdir -p "$report"
log="$report/device-checks.log"
status=0
exec > >(tee "$log") 2>&1
{
  echo "== nvidia-smi"; nvidia-smi || echo "nvidia-smi failed"
  echo; echo "== GPU tests (WEFT_REQUIRE_GPU=1)"
  if [[ ! -x "$bin/cuda-tests" ]]; then
    echo "missing $bin/cuda-tests: run gpu/run-device-checks.sh --prepare here and carry target/device-bin"
    status=1
  else
    WEFT_REQUIRE_GPU=1 "$bin/cuda-tests" --test-threads=1 --nocapture || status=1
  fi
  echo; echo "== golden cases on the GPU (WEFT_REQUIRE_GPU=1)"
  if [[ ! -x "$bin/cuda-golden" ]]; then
    echo "missing $bin/cuda-golden"; status=1
  else
    WEFT_REQUIRE_GPU=1 WEFT_GOLDEN_DIR="$bin/golden" "$bin/cuda-golden" --nocapture || status=1
  fi
  echo; echo "== user functors on the GPU (tests/user_ptx.rs, WEFT_REQUIRE_GPU=1)"
  WEFT_REQUIRE_GPU=1 WEFT_USER_PTX="$bin/user_functors.ptx" "$bin/user-ptx-tests" --test-threads=1 --nocapture || status=1
  echo; echo "== bandwidth (2^${BANDWIDTH_LOG2:-28} elements)"
  if [[ -x "$bin/gpu_bandwidth" ]]; then
    "$bin/gpu_bandwidth" "${BANDWIDTH_LOG2:-28}" | tee "$report/bandwidth.md" || status=1
  else
    echo "missing $bin/gpu_bandwidth"; status=1
  fi
  echo; echo "== PyTorch on the same GPU, same cases (gpu/torch_bandwidth.py; informational)"
  if python3 -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    timeout 120 python3 gpu/torch_bandwidth.py "${BANDWIDTH_LOG2:-28}" | tee "$report/torch-bandwidth.md"
  else
    echo "no python3 torch with CUDA here: skipped"
  fi
  echo; echo "== compute-sanitizer memcheck over the GPU tests (if the tool is there)"
  sanitizer="$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)"
  if [[ -n "$sanitizer" && -x "$bin/cuda-tests" ]]; then
    WEFT_REQUIRE_GPU=1 timeout "${SANITIZER_TIMEOUT:-150}" "$sanitizer" --tool memcheck --error-exitcode 3 \
      "$bin/cuda-tests" --test-threads=1 || status=1
  else
    echo "compute-sanitizer not found: skipped"
  fi
  echo; echo "device checks: $([[ $status == 0 ]] && echo PASSED || echo FAILED)"
}
exit $status
