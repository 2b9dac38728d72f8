package hf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasplab/gasp/pkg/atomicfile"
	"github.com/gasplab/gasp/pkg/infile"
)

// Errors that Resolve wraps, for errors.Is.
var (
	// ErrNotFound: the hub has no such model, revision or file.
	ErrNotFound = errors.New("not found")
	// ErrUnauthorized: the hub refused access (401/403): the model is gated or private and no valid token was given.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrNotCached: offline, and the model or one of its files is not in the local cache.
	ErrNotCached = errors.New("not in the local cache")
)

// DefaultEndpoint is the Hugging Face hub.
const DefaultEndpoint = "https://huggingface.co"

// Options controls Resolve. The zero value follows huggingface_hub's environment variables.
type Options struct {
	// Revision is a branch, tag or commit hash; "" means "main".
	Revision string
	// Token authenticates to the hub; "" means $HF_TOKEN, else the token file $HF_TOKEN_PATH, else $HF_HOME/token
	// (HF_HOME defaults to $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface), as huggingface_hub does.
	Token string
	// CacheDir is the hub cache; "" means $HF_HUB_CACHE, else $HF_HOME/hub.
	CacheDir string
	// Endpoint is the hub's base URL; "" means $HF_ENDPOINT, else https://huggingface.co.
	Endpoint string
	// Offline resolves from the cache only, without network; it is also on when $HF_HUB_OFFLINE is 1 (or
	// true, yes, on).
	Offline bool
	// Files lists the repository files to fetch. Nil means the files of a model: config.json,
	// generation_config.json (if present), tokenizer.json, tokenizer_config.json (if present), and
	// model.safetensors, or else model.safetensors.index.json and every shard it lists. An empty non-nil
	// list fetches nothing and only resolves the revision.
	Files []string
}

// settings are Options with the environment applied.
type settings struct {
	revision, token, cacheDir, endpoint string
	offline                             bool
}

func (o *Options) settings() (settings, error) {
	s := settings{
		revision: o.Revision,
		token:    o.Token,
		cacheDir: o.CacheDir,
		endpoint: o.Endpoint,
		offline:  o.Offline || isTrue(os.Getenv("HF_HUB_OFFLINE")),
	}
	if s.revision == "" {
		s.revision = "main"
	}
	if !validRevision(s.revision) {
		return s, fmt.Errorf("hf: invalid revision %q", s.revision)
	}
	var home string
	hfHome := func() (string, error) {
		if home != "" {
			return home, nil
		}
		if h := os.Getenv("HF_HOME"); h != "" {
			home = h
		} else if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
			home = filepath.Join(x, "huggingface")
		} else {
			u, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("hf: no cache directory: set HF_HOME or HF_HUB_CACHE: %w", err)
			}
			home = filepath.Join(u, ".cache", "huggingface")
		}
		return home, nil
	}
	if s.cacheDir == "" {
		s.cacheDir = os.Getenv("HF_HUB_CACHE")
	}
	if s.cacheDir == "" {
		h, err := hfHome()
		if err != nil {
			return s, err
		}
		s.cacheDir = filepath.Join(h, "hub")
	}
	if s.endpoint == "" {
		s.endpoint = os.Getenv("HF_ENDPOINT")
	}
	if s.endpoint == "" {
		s.endpoint = DefaultEndpoint
	}
	s.endpoint = strings.TrimRight(s.endpoint, "/")
	if s.token == "" {
		s.token = os.Getenv("HF_TOKEN")
	}
	if s.token == "" && !s.offline {
		path := os.Getenv("HF_TOKEN_PATH")
		if path == "" {
			if h, err := hfHome(); err == nil {
				path = filepath.Join(h, "token")
			}
		}
		if path != "" {
			if b, err := infile.Read(path, maxSmallFile); err == nil {
				s.token = strings.TrimSpace(string(b))
			}
		}
	}
	return s, nil
}

// isTrue interprets a boolean environment variable as huggingface_hub does.
func isTrue(v string) bool {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "1", "ON", "YES", "TRUE":
		return true
	}
	return false
}

// Resolve returns a local directory holding a model's files. ref is either a local directory, returned as is,
// or a hub model id such as "meta-llama/Llama-3.2-1B", whose files (see Options.Files) are downloaded into the
// hub cache, in the layout that huggingface_hub (Python) uses and shares:
//
//	<cache>/models--org--name/blobs/<etag>
//	<cache>/models--org--name/snapshots/<commit>/<file> -> ../../blobs/<etag>
//	<cache>/models--org--name/refs/<revision>            (the commit of a branch or tag)
//
// The returned directory is the snapshot directory of the resolved commit. Files already in the cache are not
// downloaded again. Offline (Options.Offline or HF_HUB_OFFLINE=1), Resolve uses the cache only and fails with
// ErrNotCached when the revision or a file is missing. Errors from the hub wrap ErrNotFound or ErrUnauthorized.
//
// Downloads go through github.com/gomlx/go-huggingface, which cannot be interrupted once a file transfer has
// started: ctx is checked between files.
func Resolve(ctx context.Context, ref string, opts Options) (string, error) {
	if ref == "" {
		return "", errors.New("hf: empty model reference")
	}
	if fi, err := os.Stat(ref); err == nil {
		if !fi.IsDir() {
			return "", fmt.Errorf("hf: %s is a file, not a model directory", ref)
		}
		return ref, nil
	}
	if looksLikePath(ref) {
		return "", fmt.Errorf("hf: model directory %s does not exist", ref)
	}
	if !validRepoID(ref) {
		return "", fmt.Errorf("hf: %q is neither a local directory nor a hub model id (org/name)", ref)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s, err := opts.settings()
	if err != nil {
		return "", err
	}
	if s.offline {
		return resolveOffline(ctx, ref, s, opts.Files)
	}
	return resolveOnline(ctx, ref, s, opts.Files)
}

func looksLikePath(ref string) bool {
	return filepath.IsAbs(ref) || ref == "." || ref == ".." ||
		strings.HasPrefix(ref, "./") || strings.HasPrefix(ref, "../") || strings.HasPrefix(ref, "~") ||
		strings.Count(ref, "/") > 1 || (filepath.Separator != '/' && strings.ContainsRune(ref, filepath.Separator))
}

func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("hf: %w", err)
	}
	return nil
}

// validRepoID reports whether id is a hub repository id: "name" or "org/name", each part of letters, digits,
// '-', '_' and '.', starting and ending with a letter, digit or '_', with no "--" or "..", at most 96 bytes
// (huggingface_hub's validate_repo_id).
func validRepoID(id string) bool {
	if len(id) > 96 || strings.Contains(id, "--") || strings.Contains(id, "..") {
		return false
	}
	parts := strings.Split(id, "/")
	if len(parts) > 2 {
		return false
	}
	for _, p := range parts {
		if p == "" {
			return false
		}
		for i := 0; i < len(p); i++ {
			c := p[i]
			word := c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			if !word && c != '-' && c != '.' {
				return false
			}
			if !word && (i == 0 || i == len(p)-1) {
				return false
			}
		}
	}
	return true
}

// validRevision reports whether rev can name a file under refs/ safely.
func validRevision(rev string) bool {
	return rev != "" && filepath.IsLocal(rev) && !strings.Contains(rev, `\`) && !strings.Contains(rev, "..")
}

// isCommitHash reports whether s is a full git commit hash (40 lowercase hex digits).
func isCommitHash(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// repoCacheDir returns the cache directory of a model repository, as huggingface_hub names it.
func repoCacheDir(cacheDir, id string) string {
	return filepath.Join(cacheDir, "models--"+strings.ReplaceAll(id, "/", "--"))
}

// source is where fetchFiles gets a repository's files from: the hub or the cache.
type source interface {
	// has reports whether the repository has the file.
	has(ctx context.Context, file string) (bool, error)
	// fetch makes the file available locally and returns its path.
	fetch(ctx context.Context, file string) (string, error)
	// missing returns the error for a required file that the repository lacks.
	missing(file string) error
}

// fetchFiles fetches files from src, or, when files is nil, the files of a model (see Options.Files).
func fetchFiles(ctx context.Context, src source, files []string) error {
	get := func(file string, required bool) (string, error) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		ok, err := src.has(ctx, file)
		if err != nil {
			return "", err
		}
		if !ok {
			if required {
				return "", src.missing(file)
			}
			return "", nil
		}
		return src.fetch(ctx, file)
	}
	if files != nil {
		for _, f := range files {
			if !filepath.IsLocal(f) || strings.Contains(f, `\`) {
				return fmt.Errorf("hf: invalid repository file name %q", f)
			}
			if _, err := get(f, true); err != nil {
				return err
			}
		}
		return nil
	}
	for _, f := range []struct {
		name     string
		required bool
	}{
		{"config.json", true},
		{"generation_config.json", false},
		{"tokenizer.json", true},
		{"tokenizer_config.json", false},
	} {
		if _, err := get(f.name, f.required); err != nil {
			return err
		}
	}
	p, err := get(SafetensorsFile, false)
	if err != nil || p != "" {
		return err
	}
	p, err = get(SafetensorsIndexFile, false)
	if err != nil {
		return err
	}
	if p == "" {
		return src.missing(SafetensorsFile + " or " + SafetensorsIndexFile)
	}
	_, shards, err := readShardIndex(p)
	if err != nil {
		return err
	}
	for _, s := range shards {
		if _, err := get(s, true); err != nil {
			return fmt.Errorf("%w (a shard listed in %s)", err, SafetensorsIndexFile)
		}
	}
	return nil
}

// cacheSource serves files from a snapshot directory of the cache.
type cacheSource struct {
	id, revision, snapshot string
}

func (c *cacheSource) has(_ context.Context, file string) (bool, error) {
	_, err := os.Stat(filepath.Join(c.snapshot, filepath.FromSlash(file)))
	return err == nil, nil
}

func (c *cacheSource) fetch(_ context.Context, file string) (string, error) {
	return filepath.Join(c.snapshot, filepath.FromSlash(file)), nil
}

func (c *cacheSource) missing(file string) error {
	return fmt.Errorf("hf: %s@%s: %s is %w (%s) and offline mode (HF_HUB_OFFLINE) forbids downloading it",
		c.id, c.revision, file, ErrNotCached, c.snapshot)
}

// resolveOffline finds the revision's snapshot in the cache and checks that the files are there.
func resolveOffline(ctx context.Context, id string, s settings, files []string) (string, error) {
	repoDir := repoCacheDir(s.cacheDir, id)
	commit, ok := cachedCommit(repoDir, s.revision)
	if !ok {
		return "", fmt.Errorf("hf: %s@%s is %w %s and offline mode (HF_HUB_OFFLINE) forbids downloading it: run once online first",
			id, s.revision, ErrNotCached, s.cacheDir)
	}
	snap := filepath.Join(repoDir, "snapshots", commit)
	if err := fetchFiles(ctx, &cacheSource{id: id, revision: s.revision, snapshot: snap}, files); err != nil {
		return "", err
	}
	return snap, nil
}

// cachedCommit returns the commit of revision that the cache knows: the revision itself if it is a commit with a
// snapshot, else refs/<revision> (written by huggingface_hub and by Resolve), else the revision info that
// go-huggingface keeps in info/<revision>.
func cachedCommit(repoDir, revision string) (string, bool) {
	exists := func(commit string) bool {
		fi, err := os.Stat(filepath.Join(repoDir, "snapshots", commit))
		return err == nil && fi.IsDir()
	}
	if isCommitHash(revision) && exists(revision) {
		return revision, true
	}
	if b, err := infile.Read(filepath.Join(repoDir, "refs", filepath.FromSlash(revision)), maxSmallFile); err == nil {
		if c := strings.TrimSpace(string(b)); validCommitDir(c) && exists(c) {
			return c, true
		}
	}
	var info struct {
		SHA string `json:"sha"`
	}
	if err := ReadJSON(filepath.Join(repoDir, "info"), filepath.FromSlash(revision), &info); err == nil {
		if validCommitDir(info.SHA) && exists(info.SHA) {
			return info.SHA, true
		}
	}
	return "", false
}

// validCommitDir reports whether a commit id from a server or the cache is safe as a directory name.
func validCommitDir(c string) bool {
	return c != "" && filepath.IsLocal(c) && !strings.ContainsAny(c, `/\`)
}

// writeRef records the commit of a branch or tag in refs/<revision>, as huggingface_hub does, so that offline
// resolution finds it.
func writeRef(repoDir, revision, commit string) error {
	if revision == commit {
		return nil
	}
	path := filepath.Join(repoDir, "refs", filepath.FromSlash(revision))
	if b, err := infile.Read(path, maxSmallFile); err == nil && string(b) == commit {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("hf: %w", err)
	}
	if err := atomicfile.WriteFile(path, []byte(commit)); err != nil {
		return fmt.Errorf("hf: %w", err)
	}
	return nil
}

// maxSmallFile bounds the files of a few bytes the cache keeps (a ref's
// commit hash) and the token file.
const maxSmallFile = 64 << 10
