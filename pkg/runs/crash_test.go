package runs

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

const crashEnv = "GASP_RUNS_CRASH_CHILD"

// crashRec is the record of run i in the crash test: every seventh one is
// long enough (about 30 KB) for its write to span several pages, which a
// kill can tear.
func crashRec(i int) Record {
	n := 4 + i%11
	if i%7 == 0 {
		n = 5000
	}
	r := rec("SLIA/crash", "mcmc-uniform", 10, i)
	r.IDs = make([]int, n)
	for j := range r.IDs {
		r.IDs[j] = (i*7919 + j*104729) % 100000
	}
	r.Accepted = []bool{true, false, i%2 == 0}
	return r
}

// crashChild appends crash records to the store named by the environment,
// skipping those already there, and prints "ack i" after each Append
// returns, until killed. It reports torn lines it drops as "warn ...".
func crashChild() {
	dir := os.Getenv(crashEnv)
	sync, _ := strconv.Atoi(os.Getenv(crashEnv + "_SYNC"))
	compactEvery, _ := strconv.Atoi(os.Getenv(crashEnv + "_COMPACT"))
	st, err := OpenWith(dir, Options{SyncEvery: sync, Warn: func(w Warning) { fmt.Println("warn", w) }})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		r := crashRec(i)
		done, err := st.Has(r.Task, r.Method, r.K, r.Run)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		if done {
			continue
		}
		if err := st.Append(r); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("ack", i)
		if compactEvery > 0 && i%compactEvery == compactEvery-1 {
			fmt.Println("compacting")
			if _, err := st.Compact(); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
			fmt.Println("compacted")
		}
	}
	os.Exit(3)
}

// TestCrash kills a writer at random moments, resuming after each kill, and
// checks that every acknowledged record survives intact, that at most the
// one record in flight is lost, and that a torn line never breaks the
// store. Kills rarely land inside a write, so every third round also
// leaves a torn line as such a kill would, for the next child to recover.
func TestCrash(t *testing.T) { crashTest(t, "TestCrash", 0) }

// TestCrashCompact is TestCrash with a compaction (Store.Compact) after
// every 25 appends, so that kills also land inside compactions: none may
// lose, duplicate or damage a record.
func TestCrashCompact(t *testing.T) { crashTest(t, "TestCrashCompact", 25) }

func crashTest(t *testing.T, name string, compactEvery int) {
	if os.Getenv(crashEnv) != "" {
		crashChild()
		return
	}
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	acked, torn, planted, inCompaction := -1, 0, 0, 0
	for iter := range 20 {
		sync := 1
		if iter%2 == 1 {
			sync = -1 // no fsync: the kill lands in a write more often
		}
		cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir, fmt.Sprintf("%s_SYNC=%d", crashEnv, sync),
			fmt.Sprintf("%s_COMPACT=%d", crashEnv, compactEvery))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		if l := <-lines; l != "ready" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child: %q", l)
		}
		compacting := false
		parse := func(l string) {
			switch l {
			case "compacting", "compacted":
				compacting = l == "compacting"
				return
			}
			if strings.HasPrefix(l, "warn ") {
				t.Logf("iteration %d: child: %s", iter, l)
				torn++
				return
			}
			if _, err := fmt.Sscanf(l, "ack %d", &acked); err != nil {
				t.Fatalf("child: %q", l)
			}
		}
		kill := time.After(time.Duration(rng.IntN(40_000)) * time.Microsecond)
	wait:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break wait
				}
				parse(l)
			case <-kill:
				cmd.Process.Kill() // SIGKILL
				for l := range lines {
					parse(l)
				}
				break wait
			}
		}
		cmd.Wait()
		if compacting {
			inCompaction++
		}

		var warned []Warning
		st, err := OpenWith(dir, Options{Warn: func(w Warning) { warned = append(warned, w) }})
		if err != nil {
			t.Fatalf("iteration %d: reopening after the kill: %v", iter, err)
		}
		recs, err := st.Records("SLIA/crash", "mcmc-uniform")
		if err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		torn += len(warned)
		for i, r := range recs {
			if want := crashRec(i); !reflect.DeepEqual(r, want) {
				t.Fatalf("iteration %d: record %d is %+v, want %+v", iter, i, r, want)
			}
		}
		// Records acknowledged: 0…acked. One more may have been written
		// before the kill; nothing acknowledged may be missing.
		if n := len(recs); n < acked+1 || n > acked+2 {
			t.Fatalf("iteration %d: %d records stored, %d acknowledged", iter, n, acked+1)
		}
		acked = len(recs) - 1
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if iter%3 == 2 {
			line, err := crashRec(len(recs)).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			// At least one byte: an empty "torn line" would be no torn line at all.
			plantTorn(t, st.Path("SLIA/crash", "mcmc-uniform"), string(line[:1+rng.IntN(len(line)-1)]))
			planted++
		}
	}
	// The store as a whole reads back cleanly.
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := ro.Each(func(Record) error { n++; return nil }); err != nil || len(ro.Warnings()) != 0 {
		t.Fatalf("final read: %v, warnings %v", err, ro.Warnings())
	}
	if n != acked+1 {
		t.Fatalf("final read: %d records, want %d", n, acked+1)
	}
	if torn < planted {
		t.Fatalf("%d torn lines reported, %d planted", torn, planted)
	}
	t.Logf("20 kills, %d inside a compaction: %d records; %d torn last lines dropped, %d of them planted", inCompaction, n, torn, planted)
	b, err := os.ReadFile(ro.Path("SLIA/crash", "mcmc-uniform"))
	if compactEvery > 0 && errors.Is(err, fs.ErrNotExist) {
		return // every record sealed
	}
	if err != nil || len(b) > 0 && !strings.HasSuffix(string(b), "\n") {
		t.Fatalf("file does not end in a newline: %v", err)
	}
}

// plantTorn leaves the torn line that a kill inside Append would: at the end
// of the open segment, or as the whole of one that a compaction had just
// removed (Append creates it anew).
func plantTorn(t *testing.T, path, torn string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(torn); err != nil {
		t.Fatal(err)
	}
}
