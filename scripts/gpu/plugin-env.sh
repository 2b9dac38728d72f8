#!/usr/bin/env bash
# plugin-env.sh PYTHON: sourced by gpu-check.sh on a GPU machine. Sets up jax's CUDA PJRT plugin for gasp
# as jax's own Python code does before it uses it (jax_plugins/cuda/__init__.py preloads the libraries of
# the nvidia.* wheels; jax/_src/compiler.py passes --xla_gpu_cuda_data_dir on every compile), which go-xla
# does only when a jax_plugins/nvidia folder sits beside the plugin:
#
#   PJRT_PLUGIN      the plugin by its real path (its RPATH finds the wheels' libraries relative to itself)
#   GOMLX_BACKEND    xla:$PJRT_PLUGIN,tf32=false,preallocate=false, unless already set: TF32 off for the
#                    f32 logits check; no preallocation, so that nvidia-smi shows what gasp holds
#   LD_LIBRARY_PATH  every nvidia/*/lib folder of the wheels, first
#   XLA_FLAGS        --xla_gpu_cuda_data_dir=the folder holding nvvm/libdevice (only long-established flags:
#                    an unknown one aborts the process)
#   PATH             the folder of the wheels' ptxas, first
py="${1:-python3}"
plugin_dir="$("$py" -c 'import jax_plugins.xla_cuda13 as p; print(p.__path__[0])' 2>/dev/null)"
if [[ -z "$plugin_dir" || ! -f "$plugin_dir/xla_cuda_plugin.so" ]]; then
	echo "plugin-env: jax's CUDA plugin (jax_plugins.xla_cuda13, xla_cuda_plugin.so) not found with $py" >&2
	return 1 2>/dev/null || exit 1
fi
export PJRT_PLUGIN="$(realpath "$plugin_dir/xla_cuda_plugin.so")"
site="$(dirname "$(dirname "$(realpath "$plugin_dir")")")"
nv="$site/nvidia"
NVIDIA_LIB_DIRS="$(find "$nv" -maxdepth 3 -type d -name lib 2>/dev/null | sort | paste -sd: -)"
export NVIDIA_LIB_DIRS
export LD_LIBRARY_PATH="${NVIDIA_LIB_DIRS}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
libdevice="$(find "$nv" -name 'libdevice*.bc' 2>/dev/null | head -n 1)"
if [[ -n "$libdevice" ]]; then
	# .../<cuda dir>/nvvm/libdevice/libdevice.10.bc
	export XLA_FLAGS="--xla_gpu_cuda_data_dir=$(dirname "$(dirname "$(dirname "$libdevice")")")${XLA_FLAGS:+ $XLA_FLAGS}"
fi
ptxas="$(find "$nv" -name ptxas -type f 2>/dev/null | head -n 1)"
if [[ -n "$ptxas" ]]; then export PATH="$(dirname "$ptxas"):$PATH"; fi
export GOMLX_BACKEND="${GOMLX_BACKEND:-xla:$PJRT_PLUGIN,tf32=false,preallocate=false}"
