// Package runs is the run store: the samples of an experiment, one JSON
// record per line, in a directory under mcmc/. Samplers append to it,
// a resumed run asks it what is done, and the analysis reads it back.
// mcmc/README.md documents the layout and every field of a Record.
//
// # Layout
//
//	mcmc/<experiment>/LOCK                    writer lock: flock(2), holder's pid inside
//	mcmc/<experiment>/<task>/<method>.jsonl     the records of one method on one task (open segment)
//	mcmc/<experiment>/<task>/<method>.jsonl.gz  the same, sealed by Compact: gzip'd JSONL
//
// Task and method names are escaped to one path element each: bytes other
// than [A-Za-z0-9._-], '%' and a leading '.' become %XX, so the task
// "SLIA/name-combine-4" lives in SLIA%2Fname-combine-4/. Store.Path gives
// the file of a (task, method); every record also names both.
//
// # Sealed segments
//
// A series may also have a sealed segment, <method>.jsonl.gz: records
// that Store.Compact moved out of the open segment, gzip-compressed,
// which nothing appends to. Readers read the sealed records, then the
// open ones; Has, Done and Append's duplicate and seed checks cover both,
// and a (k, run) in both is corruption. Compact writes the new sealed
// segment atomically (temporary file, fsync, rename), then removes the
// open one; the sealed segment's gzip comment names the open segment it
// absorbed (length and SHA-256), so that one left by a compaction killed
// in between is skipped by readers and removed by the next writer. A
// sealed segment's gzip errors (truncated, corrupt) are *CorruptError
// naming its file and the line where reading stopped. compact.go has the
// details.
//
// # Writing and resuming
//
//	st, err := runs.Open("mcmc/exp1") // creates the directory, locks it
//	if err != nil { ... }            // *runs.LockedError if another writer holds it
//	defer st.Close()
//	for run := range 100 {
//		done, err := st.Has(task, "gcd", 0, run)
//		if err != nil { ... }
//		if done {
//			continue // written before the crash
//		}
//		rec := runs.Record{Task: task, Method: "gcd", K: 0, Run: run, Seed: seed, ...}
//		if err := st.Append(rec); err != nil { ... }
//	}
//
// Append writes one line with a single write(2) on a file opened with
// O_APPEND, then fsyncs it (Options.SyncEvery batches the fsyncs, with the
// loss bound it documents). Lines already written are never rewritten.
// A run killed at any moment therefore loses at most the record it was
// appending, and may leave that record's line torn. The next Open of the
// same series drops a torn last line — one without its newline that is the
// start of a record ({"schema":…) or zeros — reports it as a Warning
// (through Options.Warn and Store.Warnings; the package logs nothing), and,
// when writable, truncates the file to the end of its last good line before
// appending. Any other bad line, a complete last line included, is a
// *CorruptError naming file and line: the store never skips a record
// silently, and never truncates a file that is not its own. So is a record
// no writer appends: a second record of a (k, run), a negative k or run, a
// NaN log probability or one above 0 (a probability above 1). Keys fails
// on a directory or .jsonl file whose name is not an escaped name (a
// lower-case or bad %XX, a leading dot), naming its path, instead of
// skipping it; and a store follows no symbolic link: a task directory or
// record file that is one is an error naming it, for readers and writers
// alike.
//
// Only one process may write an experiment: Open takes a flock(2) on LOCK,
// which the kernel releases when the holder exits or is killed, so a crash
// leaves no stale lock. A LOCK that holds anything but a process id is a
// user's file: Open fails and leaves it alone. Readers (OpenReadOnly) take
// no lock. A writer also holds a shared flock on the directory itself for
// as long as it writes (Open, and Writing for a writer such as
// experiment.Run that opens the store only to append, so that shards may
// share it): Busy tells a reader that the store is being written, and an
// analysis of it would be of part of its records.
//
// Append refuses a (task, method, k, run) already stored (ErrExists) and a
// run whose seed differs from the one stored for it, so that a resume with
// a changed configuration fails loudly instead of mixing two experiments.
//
// A store holds one configuration: a record carries the sampling settings
// it was drawn with (Record.Settings). A store opened with its settings
// (Options.Settings: pkg/experiment gives those of the store's
// experiment.json) writes them into the records it appends, and every
// reader of it refuses a record of other settings with a *SettingsError
// naming the record's file and line; without them, the records that carry
// settings must agree with the first one read. Records without settings,
// written before records carried them, are read as they are.
//
// OpenFile keeps one (task, method) in a single file of the caller's choice
// instead ("gasp sample --out F.jsonl"), with the same guarantees; it
// locks F.jsonl itself (flock; F.jsonl.lock where there is no flock), and
// removes F.jsonl on Close if it created it and wrote nothing.
//
// # Reading
//
//	st, err := runs.OpenReadOnly("mcmc/exp1") // error if it does not exist
//	keys, err := st.Keys()                    // every (task, method), sorted
//	recs, err := st.Records(task, "mcmc-priority")
//	err = st.Each(func(r runs.Record) error { ...; return nil })
//
// A series stores its prompt once: Append leaves prompt_ids out of a record
// whose prompt equals the previous record's in the file (schema 2), and
// readers fill it in, so that records of long prompts are not mostly
// prompt. Records read from one file may share their PromptIDs slice.
//
// Readers tolerate fields they do not know, so later schema versions can
// add fields without breaking them; a record with a higher schema version
// than Schema is refused.
package runs
