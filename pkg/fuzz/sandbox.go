package fuzz

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// A Sandbox runs commands under bubblewrap (bwrap): the root file system is
// mounted read-only, /tmp and $HOME are empty in-memory file systems, the
// network, IPC, UTS and PID namespaces are private, and Work is the only
// writable directory. ReadOnly lists directories that are bound again,
// read-only, after /tmp and $HOME are emptied (the toolchain, when it lies
// under one of them).
type Sandbox struct {
	Work     string
	ReadOnly []string
	// Env is the environment of the sandboxed command (besides PATH, HOME
	// and TMPDIR, which the sandbox sets).
	Env []string
}

// Command returns a command that runs name with args inside the sandbox,
// in the directory Work.
func (s *Sandbox) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	bw := []string{
		"--die-with-parent", "--new-session",
		"--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-pid",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		bw = append(bw, "--tmpfs", home)
	}
	for _, d := range s.ReadOnly {
		bw = append(bw, "--ro-bind", d, d)
	}
	bw = append(bw, "--bind", s.Work, s.Work, "--chdir", s.Work,
		"--clearenv",
		"--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
		"--setenv", "HOME", "/tmp/home",
		"--setenv", "TMPDIR", "/tmp",
	)
	for _, kv := range s.Env {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				bw = append(bw, "--setenv", kv[:i], kv[i+1:])
				break
			}
		}
	}
	bw = append(bw, "--", name)
	bw = append(bw, args...)
	cmd := exec.CommandContext(ctx, "bwrap", bw...)
	cmd.Dir = s.Work
	return cmd
}

// CheckSandbox reports whether bubblewrap works on this machine.
func CheckSandbox(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "gasp-sandbox-check")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s := &Sandbox{Work: dir}
	out, err := s.Command(ctx, "sh", "-c", "touch ok").CombinedOutput()
	if err != nil {
		return fmt.Errorf("bubblewrap does not work here: %v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ok")); err != nil {
		return fmt.Errorf("bubblewrap: work directory is not writable: %v", err)
	}
	return nil
}
