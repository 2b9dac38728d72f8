package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	backends "github.com/gomlx/compute"

	"github.com/gasplab/gasp/pkg/hf"
	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/model"
)

func runDoctor(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp doctor", "gasp doctor [--model DIR] [--batch B] [--seq S] [--dtype f32|bf16|auto]", `
Checks that this machine can run a Llama model with gasp, and says why not:
the backend ($GOMLX_BACKEND; default "cpu", gasp's own engine) and whether it
is compiled into this binary; the cpu engine's kernels (AVX-512 or AVX2 in a
build with GOEXPERIMENT=simd, else portable Go) and what such a build would
run here; for XLA, the PJRT plugin it would load (an absolute path in
GOMLX_BACKEND=xla:/path/to/plugin.so, else go-xla's search path) or why none
is found, and jax's CUDA plugin if python3 can find it; the backend's devices
and their memory; the model's dtype; and the memory a session of B rows of S
positions needs (llama.EstimateMemory). Exits 1 naming what is missing.`, stdout, stderr)
	model := cl.modelFlag()
	batch := cl.Int("batch", 64, "rows of the session to size")
	seq := cl.Int("seq", 1024, "positions per row of the session to size")
	dtype := cl.String("dtype", "auto", "weights and cache dtype: f32, bf16 or auto")
	if done, code := cl.parseNoArgs(args); done {
		return code
	}
	if bad := firstBad(
		flagCheck{*batch < 1, fmt.Sprintf("--batch must be at least 1, got %d", *batch)},
		flagCheck{*seq < 1, fmt.Sprintf("--seq must be at least 1, got %d", *seq)},
	); bad != "" {
		return cl.usageError("%s", bad)
	}
	want, err := llama.ParseDType(*dtype)
	if err != nil {
		return cl.usageError("--dtype: %v", err)
	}
	var problems []string
	problem := func(format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		problems = append(problems, msg)
		fmt.Fprintf(stdout, "  PROBLEM: %s\n", msg)
	}
	config := llama.Backend("")
	name, opts, _ := strings.Cut(config, ":")
	fmt.Fprintf(stdout, "backend: %q (%s=%q); compiled in: %s, %s\n", config, backends.ConfigEnvVar, os.Getenv(backends.ConfigEnvVar), llama.CPUBackend, strings.Join(backends.List(), ", "))
	if config != llama.CPUBackend && !slices.Contains(backends.List(), name) {
		problem("backend %q is not compiled into this binary (build with -tags xla for XLA)", name)
	}
	if name == "xla" || name == "stablehlo" {
		doctorPlugin(stdout, opts, problem)
	}
	devMem := doctorDevices(stdout, config, problem)
	doctorModel(stdout, *model, config, want, *batch, *seq, devMem, problem)
	if len(problems) > 0 {
		fmt.Fprintf(stdout, "not ready: %d problem(s)\n", len(problems))
		for _, p := range problems {
			fmt.Fprintf(stderr, "gasp doctor: %s\n", p)
		}
		return 1
	}
	fmt.Fprintln(stdout, "ready")
	return 0
}

// doctorPlugin reports the PJRT plugin an "xla:opts" backend would load.
func doctorPlugin(w io.Writer, opts string, problem func(string, ...any)) {
	plugin, _, _ := strings.Cut(opts, ",")
	if plugin == "" {
		plugin = "cpu"
	}
	if jax := jaxCUDAPlugin(); jax != "" {
		fmt.Fprintf(w, "jax's CUDA plugin: %s (use GOMLX_BACKEND=xla:%s)\n", jax, jax)
	}
	if flags := llama.XLAFlags("xla:"+opts, os.Getenv(llama.XLAFlagsEnv)); flags != "" {
		fmt.Fprintf(w, "XLA_FLAGS: %s\n", flags)
	}
	if filepath.IsAbs(plugin) {
		if fi, err := os.Stat(plugin); err != nil || fi.IsDir() {
			problem("PJRT plugin %s: not a file (%v)", plugin, err)
			return
		}
		fmt.Fprintf(w, "PJRT plugin: %s (absolute path: no search, no auto-install)\n", plugin)
		return
	}
	names := []string{"pjrt_c_api_" + plugin + "_plugin.so", "pjrt-plugin-" + plugin + ".so", "pjrt_plugin_" + plugin + ".so"}
	var dirs []string
	if p := os.Getenv("PJRT_PLUGIN_LIBRARY_PATH"); p != "" {
		dirs = append(dirs, filepath.SplitList(p)...)
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".local/lib/go-xla"), filepath.Join(home, ".local/lib/go-xla/nvidia"))
	}
	dirs = append(dirs, "/usr/local/lib/go-xla", "/usr/local/lib/go-xla/nvidia")
	dirs = append(dirs, filepath.SplitList(os.Getenv("LD_LIBRARY_PATH"))...)
	for _, d := range dirs {
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(d, n)); err == nil {
				fmt.Fprintf(w, "PJRT plugin: %s\n", filepath.Join(d, n))
				return
			}
		}
	}
	problem("no PJRT plugin %q: none of %s in $PJRT_PLUGIN_LIBRARY_PATH, ~/.local/lib/go-xla, /usr/local/lib/go-xla, $LD_LIBRARY_PATH "+
		"(give its absolute path: GOMLX_BACKEND=xla:/path/to/plugin.so; set GOMLX_NO_AUTO_INSTALL=1 on a machine without internet)",
		plugin, strings.Join(names, ", "))
}

// jaxCUDAPlugin returns the path of jax's CUDA PJRT plugin when python3 can import it, else "".
func jaxCUDAPlugin() string {
	for _, pkg := range []string{"jax_plugins.xla_cuda13", "jax_plugins.xla_cuda12"} {
		out, err := exec.Command("python3", "-c", "import "+pkg+" as p; print(p.__path__[0])").Output()
		if err != nil {
			continue
		}
		p := filepath.Join(strings.TrimSpace(string(out)), "xla_cuda_plugin.so")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// doctorDevices creates the backend, lists its devices and returns the memory of its first device (0 when
// unknown): the GPU's from nvidia-smi for CUDA, the host's available memory for CPU backends.
func doctorDevices(w io.Writer, config string, problem func(string, ...any)) int64 {
	if config == llama.CPUBackend {
		fmt.Fprintf(w, "cpu engine kernels: %s\n", cpuKernelsNote(llama.CPUKernels(), llama.SIMDKernels()))
		return hostMemory(w)
	}
	b, err := llama.NewBackend(config)
	if err != nil {
		problem("%v", err)
		return 0
	}
	defer b.Finalize()
	fmt.Fprintf(w, "backend description: %s\n", b.Description())
	for i := range b.NumDevices() {
		fmt.Fprintf(w, "device %d: %s\n", i, b.DeviceDescription(backends.DeviceNum(i)))
	}
	if strings.Contains(strings.ToLower(config+b.Description()), "cuda") {
		return nvidiaSMI(w, problem)
	}
	return hostMemory(w)
}

// cpuKernelsNote says which kernels run (have) and what a build with GOEXPERIMENT=simd would run on this CPU
// (simd), and what that gains.
func cpuKernelsNote(have, simd string) string {
	if have != "portable Go" || simd == have {
		return have
	}
	return fmt.Sprintf("%s; this CPU has %s: a build with GOEXPERIMENT=simd (source scripts/goenv.sh first, as scripts/main-job.sh does) "+
		"runs %s kernels, the model's steps several times faster (BENCHMARKS.md: \"Fast by default\")", have, simd, simd)
}

// hostMemory prints the host's CPUs and available memory, and returns the memory.
func hostMemory(w io.Writer) int64 {
	avail := memAvailable()
	fmt.Fprintf(w, "host: %d CPUs, %s available memory\n", runtime.NumCPU(), gib(avail))
	fmt.Fprintln(w, "GPU: none (this backend runs on the CPU)")
	return avail
}

// nvidiaSMI prints the GPUs nvidia-smi lists and returns the free memory of the first.
func nvidiaSMI(w io.Writer, problem func(string, ...any)) int64 {
	out, err := exec.Command("nvidia-smi", "--query-gpu=name,memory.total,memory.free", "--format=csv,noheader,nounits").Output()
	if err != nil {
		problem("nvidia-smi: %v (no NVIDIA driver?)", err)
		return 0
	}
	var free int64
	for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, ", ")
		if len(f) != 3 {
			continue
		}
		total, _ := strconv.ParseInt(f[1], 10, 64)
		fr, _ := strconv.ParseInt(f[2], 10, 64)
		fmt.Fprintf(w, "GPU %d: %s, %s total, %s free\n", i, f[0], gib(total<<20), gib(fr<<20))
		if i == 0 {
			free = fr << 20
		}
	}
	return free
}

// memAvailable returns MemAvailable from /proc/meminfo in bytes (0 when unknown).
func memAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// doctorModel reports the model's dtype and the memory a session needs, against the device's memory.
func doctorModel(w io.Writer, dir, config string, want hf.DType, batch, seq int, devMem int64, problem func(string, ...any)) {
	if dir == "" {
		d, err := findDefaultModel()
		if err != nil {
			problem("%v", err)
			return
		}
		dir = d
	}
	cfg, err := llama.LoadConfig(dir)
	if err != nil {
		problem("%v", err)
		return
	}
	// The tokenizer and vocabulary as a run opens them (all but the
	// weights): a model a run refuses is not ready.
	if _, err := model.Open(context.Background(), dir); err != nil {
		problem("%v", err)
		return
	}
	ckpt, err := hf.OpenCheckpoint(dir)
	if err != nil {
		problem("%v", err)
		return
	}
	info, _ := ckpt.Info("model.embed_tokens.weight")
	ckpt.Close()
	dt, err := llama.ResolveDType(want, config, info.DType)
	if err != nil {
		problem("%v", err)
		return
	}
	fmt.Fprintf(w, "model: %s: %d parameters, checkpoint dtype %s (config.json: %q), running in %s\n",
		dir, cfg.NumParams(), info.DType, cfg.TorchDType, dt)
	mem, err := llama.EstimateBackendMemory(cfg, config, dt, batch, seq)
	if err != nil {
		problem("%v", err)
		return
	}
	fmt.Fprintf(w, "memory for %d rows × %d positions: weights %s + caches %s + temporaries %s = peak %s\n",
		batch, seq, gib(mem.Weights), gib(mem.Caches), gib(mem.Temporaries), gib(mem.Peak()))
	if devMem > 0 && mem.Peak() > devMem {
		problem("the session needs %s at its peak, the device has %s free: use fewer rows or positions", gib(mem.Peak()), gib(devMem))
	}
}

func gib(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }
