# Shared by gpu/build-ptx.sh (weft's own kernels) and gpu/build-user-ptx.sh (a user's functor
# crate): the toolchain checks, the nvptx64 build and the self-containedness check. Sourced, not
# run. Environment knobs (both scripts):
#   PTX_TARGET_CPU=sm_90 ...    another target (default sm_70: PTX ISA 7.0, JITs to Hopper)
#   PTX_TOOLCHAIN=1.95.0 ...    a pinned stable toolchain via RUSTC_BOOTSTRAP
#   PTX_ISA=+ptx77              the PTX ISA feature
# Needs: rustup toolchain "nightly" with components rust-src and llvm-tools.

ptx_gpu_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Checks the toolchain and exports the build environment; sets tc, cpu, target.
ptx_setup() {
  tc="${PTX_TOOLCHAIN:-nightly}"; cpu="${PTX_TARGET_CPU:-sm_70}"; target=nvptx64-nvidia-cuda
  # PTX ISA 7.7 (CUDA 11.7+ drivers): `cvta.param` lets a kernel index its by-value layout at run
  # time without first copying it to local memory.
  local ptxisa="${PTX_ISA:-+ptx77}" sysroot host
  rustc +"$tc" --version >/dev/null 2>&1 \
    || { echo "missing toolchain: rustup toolchain install $tc --component rust-src,llvm-tools" >&2; exit 3; }
  rustc +"$tc" --version | grep -q nightly || export RUSTC_BOOTSTRAP=1
  sysroot="$(rustc +"$tc" --print sysroot)"; host="$(rustc +"$tc" -vV | sed -n 's/^host: //p')"
  [[ -d "$sysroot/lib/rustlib/src/rust/library/core" ]] \
    || { echo "missing rust-src: rustup component add rust-src --toolchain $tc" >&2; exit 3; }
  export LLVM_TOOLS_BIN="$sysroot/lib/rustlib/$host/bin"
  [[ -x "$LLVM_TOOLS_BIN/llvm-link" ]] \
    || { echo "missing llvm-tools: rustup component add llvm-tools --toolchain $tc" >&2; exit 3; }
  export RUSTUP_TOOLCHAIN="$tc" RUSTUP_AUTO_INSTALL=0
  # An ambient RUSTFLAGS would silently replace the target-specific flags below.
  unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_TARGET_DIR CARGO RUSTC
  # All crates (core included) get the same target-cpu; immediate-abort turns every panic path
  # into an inline trap, which ptx_check_clean then rejects.
  export CARGO_TARGET_NVPTX64_NVIDIA_CUDA_RUSTFLAGS="-Ctarget-cpu=$cpu -Ctarget-feature=$ptxisa -Zunstable-options -Cpanic=immediate-abort"
  [[ -x "$LLVM_TOOLS_BIN/llvm-bitcode-linker" ]] \
    || export CARGO_TARGET_NVPTX64_NVIDIA_CUDA_LINKER="$ptx_gpu_dir/llvm-bitcode-linker"
}

# ptx_cargo_build <target-dir> <cargo build args...>: the release nvptx64 build (core from source).
ptx_cargo_build() {
  local tdir="$1"; shift
  cargo +"$tc" "$@" --release --target "$target" -Zbuild-std=core --target-dir "$tdir" >&2
}

# ptx_check_clean <file.ptx>: self-contained and panic-free: no unresolved symbols, no
# panicking functions, no trap paths. Prints the first offending lines and exits 4 otherwise.
# (No `grep | head` under pipefail: a SIGPIPE there once let a trapping module through.)
ptx_check_clean() {
  local ptx="$1" bad
  bad="$(awk '
    /^(\.visible |\.weak )?\.(entry|func)/ { name = $0 }
    /^[[:space:]]*\.extern|panick/ { print NR": "$0; next }
    /(^|[^[:alnum:]_])trap([^[:alnum:]_]|$)/ { print NR": "name": "$0 }' "$ptx" | sed -n 1,5p)"
  if [[ -n "$bad" ]]; then
    echo "$bad" >&2
    echo "$ptx has unresolved externs or panic paths (see above)" >&2; exit 4
  fi
}
