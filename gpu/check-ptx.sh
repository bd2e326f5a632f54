#!/usr/bin/env bash
# Assembles the committed gpu/kernels.ptx with NVIDIA's ptxas for sm_90 and sm_80 (what the
# driver's JIT does on an H100/H200 or A100), failing on any error or warning. No GPU needed.
#
# ptxas comes from PyPI's nvidia-cuda-nvcc-cu12 (~95 MB), installed once into a venv under
# target/ptxas-venv (override with PTXAS=/path/to/ptxas to skip the install).
#   gpu/check-ptx.sh              # sm_90 and sm_80
#   PTX_ARCHS="sm_90" gpu/check-ptx.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"; cd "$root"
ptxas="${PTXAS:-}"
if [[ -z "$ptxas" ]]; then
  venv="${PTXAS_VENV:-$root/target/ptxas-venv}"
  ptxas="$(find "$venv" -path '*nvidia/cuda_nvcc/bin/ptxas' -type f 2>/dev/null | head -1 || true)"
  if [[ -z "$ptxas" ]]; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'nvidia-cuda-nvcc-cu12>=12.4,<13' >&2
    ptxas="$(find "$venv" -path '*nvidia/cuda_nvcc/bin/ptxas' -type f | head -1)"
  fi
fi
[[ -x "$ptxas" ]] || { echo "check-ptx: no ptxas found" >&2; exit 3; }
"$ptxas" --version | tail -1
out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT
gzip -dc gpu/kernels.ptx.gz > "$out/kernels.ptx"   # the committed file is compressed
for arch in ${PTX_ARCHS:-sm_90 sm_80}; do
  start=$(date +%s%N)
  "$ptxas" -arch="$arch" -O3 --warning-as-error "$out/kernels.ptx" -o "$out/kernels.$arch.cubin"
  echo "ptxas -arch=$arch: ok ($(grep -c '^\.visible \.entry' "$out/kernels.ptx") kernels," \
    "$(( ($(date +%s%N) - start) / 1000000 )) ms)"
done
