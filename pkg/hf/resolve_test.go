package hf

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeHub serves model repositories over the parts of the Hugging Face hub API that Resolve and go-huggingface
// use: revision info (GET /api/models/{id}/revision/{rev}) and file downloads (HEAD and GET
// /{id}/resolve/{rev}/{file}) with ETag and X-Repo-Commit headers.
type fakeHub struct {
	token      string // the token gated repositories require
	repos      map[string]*fakeRepo
	noSiblings bool // leave the file list out of revision info

	mu       sync.Mutex
	requests []string // "METHOD path auth"
}

type fakeRepo struct {
	gated   bool
	refs    map[string]string            // branch or tag → commit
	commits map[string]map[string][]byte // commit → file → content
}

func (h *fakeHub) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
		switch {
		case len(parts) == 6 && parts[0] == "api" && parts[1] == "models" && parts[4] == "revision":
			h.serveInfo(w, r, parts[2]+"/"+parts[3], parts[5])
		case len(parts) >= 5 && parts[2] == "resolve":
			h.serveFile(w, r, parts[0]+"/"+parts[1], parts[3], strings.Join(parts[4:], "/"))
		default:
			http.NotFound(w, r)
		}
	})
}

func (h *fakeHub) serveInfo(w http.ResponseWriter, r *http.Request, id, rev string) {
	repo, commit, ok := h.lookup(w, r, id, rev)
	if !ok {
		return
	}
	var names []string
	for f := range repo.commits[commit] {
		names = append(names, f)
	}
	slices.Sort(names)
	type sibling struct {
		Name string `json:"rfilename"`
	}
	info := struct {
		ID       string    `json:"id"`
		SHA      string    `json:"sha"`
		Siblings []sibling `json:"siblings"`
	}{ID: id, SHA: commit}
	for _, n := range names {
		if !h.noSiblings {
			info.Siblings = append(info.Siblings, sibling{n})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(info)
}

func (h *fakeHub) serveFile(w http.ResponseWriter, r *http.Request, id, rev, file string) {
	repo, commit, ok := h.lookup(w, r, id, rev)
	if !ok {
		return
	}
	content, ok := repo.commits[commit][file]
	if !ok {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.Error(w, "Entry not found", http.StatusNotFound)
		return
	}
	sum := sha256.Sum256(content)
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
	w.Header().Set("X-Repo-Commit", commit)
	w.Header().Set("Content-Length", strconv.Itoa(len(content)))
	if r.Method == http.MethodGet {
		w.Write(content)
	}
}

// lookup finds the repository and commit of a request, checking authorization; it answers the errors itself.
func (h *fakeHub) lookup(w http.ResponseWriter, r *http.Request, id, rev string) (*fakeRepo, string, bool) {
	h.mu.Lock()
	h.requests = append(h.requests, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
	h.mu.Unlock()
	repo, ok := h.repos[id]
	if !ok {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.Error(w, "Repository not found", http.StatusNotFound)
		return nil, "", false
	}
	if repo.gated && r.Header.Get("Authorization") != "Bearer "+h.token {
		w.Header().Set("X-Error-Code", "GatedRepo")
		http.Error(w, "Access to this model is restricted", http.StatusUnauthorized)
		return nil, "", false
	}
	commit, ok := repo.refs[rev]
	if !ok {
		commit = rev
	}
	if _, ok := repo.commits[commit]; !ok {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		http.Error(w, "Invalid rev id", http.StatusNotFound)
		return nil, "", false
	}
	return repo, commit, true
}

// count returns how many requests matched a method and path prefix.
func (h *fakeHub) count(method, prefix string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.requests {
		if strings.HasPrefix(r, method+" "+prefix) {
			n++
		}
	}
	return n
}

const (
	commit1 = "1111111111111111111111111111111111111111"
	commit2 = "2222222222222222222222222222222222222222"
	commit3 = "3333333333333333333333333333333333333333"
	commit4 = "4444444444444444444444444444444444444444"
)

// safetensorsBytes returns the bytes of a safetensors file holding tensors.
func safetensorsBytes(t *testing.T, tensors ...Tensor) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.safetensors")
	if err := WriteSafetensors(p, tensors, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newFakeHub starts a hub with three models:
//   - test-org/tiny: a single-file model, whose branch main is at commit2 and tag v1 at commit1 (another config);
//   - test-org/sharded: a checkpoint in two shards, without the optional files;
//   - test-org/gated: a single-file model that needs the token "hf_secret".
//
// It isolates the test from the user's Hugging Face environment first (isolate).
func newFakeHub(t *testing.T) (*fakeHub, *httptest.Server) {
	t.Helper()
	isolate(t)
	weights := safetensorsBytes(t, Float32Tensor("embed", []int{2, 2}, []float32{1, 2, 3, 4}))
	tiny := func(config string) map[string][]byte {
		return map[string][]byte{
			"config.json":            []byte(config),
			"generation_config.json": []byte(`{"bos_token_id": 1}`),
			"tokenizer.json":         []byte(`{"model": {}}`),
			"tokenizer_config.json":  []byte(`{}`),
			"model.safetensors":      weights,
			"README.md":              []byte("# tiny"),
			"original/consolidated":  []byte("not wanted"),
		}
	}
	index, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"total_size": 20},
		"weight_map": map[string]string{
			"embed":  "model-00001-of-00002.safetensors",
			"head.w": "model-00002-of-00002.safetensors",
		},
	})
	h := &fakeHub{
		token: "hf_secret",
		repos: map[string]*fakeRepo{
			"test-org/tiny": {
				refs: map[string]string{"main": commit2, "v1": commit1},
				commits: map[string]map[string][]byte{
					commit1: tiny(`{"hidden_size": 1}`),
					commit2: tiny(`{"hidden_size": 2}`),
				},
			},
			"test-org/sharded": {
				refs: map[string]string{"main": commit3},
				commits: map[string]map[string][]byte{commit3: {
					"config.json":                      []byte(`{"hidden_size": 3}`),
					"tokenizer.json":                   []byte(`{}`),
					"model.safetensors.index.json":     index,
					"model-00001-of-00002.safetensors": weights,
					"model-00002-of-00002.safetensors": safetensorsBytes(t, BFloat16Tensor("head.w", []int{2}, []float32{1, -1})),
				}},
			},
			"test-org/gated": {
				gated: true,
				refs:  map[string]string{"main": commit4},
				commits: map[string]map[string][]byte{commit4: {
					"config.json":       []byte(`{"hidden_size": 4}`),
					"tokenizer.json":    []byte(`{}`),
					"model.safetensors": weights,
				}},
			},
		},
	}
	srv := httptest.NewServer(h.handler())
	t.Cleanup(srv.Close)
	return h, srv
}

// isolate points every Hugging Face environment variable at a fresh temporary home, so that tests neither
// read nor write the user's cache or token.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "xdg"))
	t.Setenv("HF_HOME", filepath.Join(home, "hf"))
	for _, v := range []string{"HF_TOKEN", "HF_TOKEN_PATH", "HF_HUB_CACHE", "HF_ENDPOINT", "HF_HUB_OFFLINE"} {
		t.Setenv(v, "")
	}
	return home
}

// mustResolve returns Resolve(ref, opts), failing the test on an error.
func mustResolve(t *testing.T, ref string, opts Options) string {
	t.Helper()
	dir, err := Resolve(context.Background(), ref, opts)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestResolveDownload(t *testing.T) {
	h, srv := newFakeHub(t)
	cache := t.TempDir()
	ctx := context.Background()
	dir := mustResolve(t, "test-org/tiny", Options{Endpoint: srv.URL, CacheDir: cache})
	repoDir := filepath.Join(cache, "models--test-org--tiny")
	if want := filepath.Join(repoDir, "snapshots", commit2); dir != want {
		t.Fatalf("Resolve = %s, want %s", dir, want)
	}
	for _, f := range []string{"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"} {
		p := filepath.Join(dir, f)
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: want a symlink into blobs/ (%v)", f, err)
		}
	}
	for _, f := range []string{"README.md", "original"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was downloaded", f)
		}
	}
	if got := readString(t, filepath.Join(dir, "config.json")); got != `{"hidden_size": 2}` {
		t.Errorf("config.json = %s", got)
	}
	if got := readString(t, filepath.Join(repoDir, "refs", "main")); got != commit2 {
		t.Errorf("refs/main = %q, want %s", got, commit2)
	}
	c, err := OpenCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := c.Float32("embed"); err != nil || !slices.Equal(v, []float32{1, 2, 3, 4}) {
		t.Errorf("embed = %v, %v", v, err)
	}
	c.Close()

	// A second resolution finds the files in the cache and downloads nothing.
	gets := h.count("GET", "/test-org/tiny/resolve/")
	dir2, err := Resolve(ctx, "test-org/tiny", Options{Endpoint: srv.URL, CacheDir: cache})
	if err != nil || dir2 != dir {
		t.Fatalf("second Resolve = %s, %v", dir2, err)
	}
	if n := h.count("GET", "/test-org/tiny/resolve/"); n != gets {
		t.Errorf("second Resolve downloaded %d files again", n-gets)
	}

	// Explicit files, HF_ENDPOINT and HF_HUB_CACHE from the environment.
	cache2 := t.TempDir()
	t.Setenv("HF_ENDPOINT", srv.URL+"/")
	t.Setenv("HF_HUB_CACHE", cache2)
	dir3 := mustResolve(t, "test-org/tiny", Options{Files: []string{"README.md", "original/consolidated"}})
	if want := filepath.Join(cache2, "models--test-org--tiny", "snapshots", commit2); dir3 != want {
		t.Errorf("Resolve = %s, want %s", dir3, want)
	}
	if got := readString(t, filepath.Join(dir3, "original", "consolidated")); got != "not wanted" {
		t.Errorf("original/consolidated = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir3, "config.json")); err == nil {
		t.Error("config.json downloaded though not asked for")
	}
	// The default cache: $HF_HOME/hub.
	t.Setenv("HF_HUB_CACHE", "")
	dir4, err := Resolve(ctx, "test-org/tiny", Options{Files: []string{}})
	if want := filepath.Join(os.Getenv("HF_HOME"), "hub", "models--test-org--tiny", "snapshots", commit2); err != nil || dir4 != want {
		t.Errorf("Resolve with no files = %s, %v; want %s", dir4, err, want)
	}
}

func TestResolveSharded(t *testing.T) {
	_, srv := newFakeHub(t)
	cache := t.TempDir()
	dir := mustResolve(t, "test-org/sharded", Options{Endpoint: srv.URL, CacheDir: cache})
	for _, f := range []string{SafetensorsIndexFile, "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not downloaded: %v", f, err)
		}
	}
	c := mustOpen(t, OpenCheckpoint, dir)
	if v, err := c.Float32("head.w"); err != nil || !slices.Equal(v, []float32{1, -1}) {
		t.Errorf("head.w = %v, %v", v, err)
	}

	// Offline, the shards are found in the cache.
	srv.Close()
	dir2, err := Resolve(context.Background(), "test-org/sharded", Options{Endpoint: srv.URL, CacheDir: cache, Offline: true})
	if err != nil || dir2 != dir {
		t.Errorf("offline Resolve = %s, %v; want %s", dir2, err, dir)
	}
	// A shard missing from the cache is reported.
	os.Remove(filepath.Join(dir, "model-00002-of-00002.safetensors"))
	_, err = Resolve(context.Background(), "test-org/sharded", Options{CacheDir: cache, Offline: true})
	if !errors.Is(err, ErrNotCached) || !strings.Contains(err.Error(), "model-00002-of-00002.safetensors") {
		t.Errorf("offline Resolve with a shard missing: %v", err)
	}
}

func TestResolveRevision(t *testing.T) {
	_, srv := newFakeHub(t)
	cache := t.TempDir()
	ctx := context.Background()
	for _, rev := range []string{"v1", commit1} {
		dir, err := Resolve(ctx, "test-org/tiny", Options{Endpoint: srv.URL, CacheDir: cache, Revision: rev})
		if err != nil {
			t.Fatalf("revision %s: %v", rev, err)
		}
		if want := filepath.Join(cache, "models--test-org--tiny", "snapshots", commit1); dir != want {
			t.Errorf("revision %s: Resolve = %s, want %s", rev, dir, want)
		}
		if got := readString(t, filepath.Join(dir, "config.json")); got != `{"hidden_size": 1}` {
			t.Errorf("revision %s: config.json = %s", rev, got)
		}
	}
	refs := filepath.Join(cache, "models--test-org--tiny", "refs")
	if got := readString(t, filepath.Join(refs, "v1")); got != commit1 {
		t.Errorf("refs/v1 = %q", got)
	}
	if _, err := os.Stat(filepath.Join(refs, commit1)); err == nil {
		t.Error("a ref was written for a commit hash")
	}

	_, err := Resolve(ctx, "test-org/tiny", Options{Endpoint: srv.URL, CacheDir: cache, Revision: "v9"})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `revision "v9"`) || !strings.Contains(err.Error(), "test-org/tiny") {
		t.Errorf("unknown revision: %v", err)
	}
	if _, err := Resolve(ctx, "test-org/tiny", Options{Endpoint: srv.URL, CacheDir: cache, Revision: "../x"}); err == nil {
		t.Error("revision ../x accepted")
	}
}

func TestResolveToken(t *testing.T) {
	h, srv := newFakeHub(t)
	ctx := context.Background()

	_, err := Resolve(ctx, "test-org/gated", Options{Endpoint: srv.URL, CacheDir: t.TempDir()})
	if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "HF_TOKEN") || !strings.Contains(err.Error(), "test-org/gated@main") {
		t.Errorf("without a token: %v", err)
	}
	t.Setenv("HF_TOKEN", "hf_wrong")
	_, err = Resolve(ctx, "test-org/gated", Options{Endpoint: srv.URL, CacheDir: t.TempDir()})
	if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "hf_wrong") {
		t.Errorf("with a wrong token: %v", err)
	}

	t.Setenv("HF_TOKEN", "hf_secret")
	dir, err := Resolve(ctx, "test-org/gated", Options{Endpoint: srv.URL, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("with HF_TOKEN: %v", err)
	}
	if got := readString(t, filepath.Join(dir, "config.json")); got != `{"hidden_size": 4}` {
		t.Errorf("config.json = %s", got)
	}
	if h.count("GET", "/test-org/gated/resolve/") == 0 {
		t.Error("nothing downloaded")
	}
	h.mu.Lock()
	for _, r := range h.requests {
		if strings.Contains(r, "/test-org/gated/resolve/") && !strings.HasSuffix(r, "Bearer hf_secret") {
			t.Errorf("request without the token: %s", r)
		}
	}
	h.mu.Unlock()

	// The token file under HF_HOME, as huggingface-cli login writes it.
	t.Setenv("HF_TOKEN", "")
	if err := os.MkdirAll(os.Getenv("HF_HOME"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, os.Getenv("HF_HOME"), "token", []byte("hf_secret\n"))
	if _, err := Resolve(ctx, "test-org/gated", Options{Endpoint: srv.URL, CacheDir: t.TempDir()}); err != nil {
		t.Errorf("with $HF_HOME/token: %v", err)
	}
	// Options.Token wins over the environment.
	t.Setenv("HF_TOKEN", "hf_wrong")
	if _, err := Resolve(ctx, "test-org/gated", Options{Endpoint: srv.URL, CacheDir: t.TempDir(), Token: "hf_secret"}); err != nil {
		t.Errorf("with Options.Token: %v", err)
	}
}

func TestResolveOffline(t *testing.T) {
	_, srv := newFakeHub(t)
	cache := t.TempDir()
	ctx := context.Background()
	online := mustResolve(t, "test-org/tiny", Options{Endpoint: srv.URL, CacheDir: cache})
	pinned := mustResolve(t, "test-org/tiny", Options{Endpoint: srv.URL, CacheDir: cache, Revision: "v1"})
	srv.Close()

	t.Setenv("HF_HUB_OFFLINE", "1")
	for _, tt := range []struct{ rev, want string }{{"", online}, {"main", online}, {"v1", pinned}, {commit1, pinned}, {commit2, online}} {
		dir, err := Resolve(ctx, "test-org/tiny", Options{Endpoint: srv.URL, CacheDir: cache, Revision: tt.rev})
		if err != nil || dir != tt.want {
			t.Errorf("offline revision %q: Resolve = %s, %v; want %s", tt.rev, dir, err, tt.want)
		}
	}
	c, err := OpenCheckpoint(online)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()

	// Not cached: another model, another revision, another file.
	for _, tt := range []struct {
		id   string
		opts Options
		want string
	}{
		{"test-org/other", Options{}, "test-org/other@main is not in the local cache"},
		{"test-org/tiny", Options{Revision: "v2"}, "test-org/tiny@v2 is not in the local cache"},
		{"test-org/tiny", Options{Files: []string{"README.md"}}, "test-org/tiny@main: README.md is not in the local cache"},
	} {
		tt.opts.CacheDir = cache
		tt.opts.Endpoint = srv.URL
		_, err := Resolve(ctx, tt.id, tt.opts)
		if !errors.Is(err, ErrNotCached) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "HF_HUB_OFFLINE") {
			t.Errorf("%s %+v: error %v, want %q", tt.id, tt.opts, err, tt.want)
		}
	}

	// Without offline mode, the closed server is reported as unreachable.
	t.Setenv("HF_HUB_OFFLINE", "0")
	_, err = Resolve(ctx, "test-org/tiny", Options{Endpoint: srv.URL, CacheDir: cache})
	if err == nil || !strings.Contains(err.Error(), "cannot reach") || !strings.Contains(err.Error(), "HF_HUB_OFFLINE=1") {
		t.Errorf("closed server: %v", err)
	}
}

// TestResolveGoHuggingfaceCache resolves offline from a cache that only go-huggingface wrote (info/<revision>
// rather than refs/<revision>).
func TestResolveGoHuggingfaceCache(t *testing.T) {
	isolate(t)
	cache := t.TempDir()
	repo := filepath.Join(cache, "models--org--m")
	writeFile(t, mkdir(t, filepath.Join(repo, "snapshots", commit1)), "config.json", []byte("{}"))
	writeFile(t, mkdir(t, filepath.Join(repo, "info")), "main", []byte(`{"sha":"`+commit1+`"}`))
	dir, err := Resolve(context.Background(), "org/m", Options{CacheDir: cache, Offline: true, Files: []string{"config.json"}})
	if want := filepath.Join(repo, "snapshots", commit1); err != nil || dir != want {
		t.Errorf("Resolve = %s, %v; want %s", dir, err, want)
	}
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestResolveNotFound(t *testing.T) {
	_, srv := newFakeHub(t)
	ctx := context.Background()
	opts := Options{Endpoint: srv.URL, CacheDir: t.TempDir()}
	_, err := Resolve(ctx, "test-org/nope", opts)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "model test-org/nope not found") || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown model: %v", err)
	}
	opts.Files = []string{"config.json", "weights.bin"}
	_, err = Resolve(ctx, "test-org/tiny", opts)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "test-org/tiny@main: file weights.bin not found") {
		t.Errorf("missing file: %v", err)
	}
	opts.Files = []string{"../etc/passwd"}
	if _, err := Resolve(ctx, "test-org/tiny", opts); err == nil || !strings.Contains(err.Error(), "invalid repository file name") {
		t.Errorf("escaping file name: %v", err)
	}
}

// TestResolveDownloadFailure makes the hub list a file that it then fails to serve.
func TestResolveDownloadFailure(t *testing.T) {
	h, _ := newFakeHub(t)
	broken := http.NewServeMux()
	broken.Handle("/", h.handler())
	broken.HandleFunc("/test-org/tiny/resolve/{rev}/tokenizer.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.Error(w, "gone", http.StatusNotFound)
	})
	srv := httptest.NewServer(broken)
	defer srv.Close()
	_, err := Resolve(context.Background(), "test-org/tiny", Options{Endpoint: srv.URL, CacheDir: t.TempDir()})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "file tokenizer.json not found") {
		t.Errorf("error %v", err)
	}
}

// TestResolveWithoutFileList resolves against a hub whose revision info lists no files, so that Resolve
// probes each file.
func TestResolveWithoutFileList(t *testing.T) {
	h, srv := newFakeHub(t)
	h.noSiblings = true
	h.repos["test-org/sharded"].commits[commit3]["generation_config.json"] = []byte(`{}`)
	cache := t.TempDir()
	dir := mustResolve(t, "test-org/sharded", Options{Endpoint: srv.URL, CacheDir: cache})
	for f, want := range map[string]bool{"generation_config.json": true, "tokenizer_config.json": false, "model-00002-of-00002.safetensors": true} {
		if _, err := os.Stat(filepath.Join(dir, f)); (err == nil) != want {
			t.Errorf("%s downloaded: %v, want %v", f, err == nil, want)
		}
	}
	_, err := Resolve(context.Background(), "test-org/sharded", Options{Endpoint: srv.URL, CacheDir: cache, Files: []string{"nope.txt"}})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nope.txt") {
		t.Errorf("missing file: %v", err)
	}
}

func TestResolveServerErrors(t *testing.T) {
	isolate(t)
	for _, tt := range []struct {
		status int
		code   string
		is     error
		want   string
	}{
		{http.StatusForbidden, "", ErrUnauthorized, "restricted (gated or private model): accept its terms"},
		{http.StatusUnauthorized, "RepoNotFound", ErrUnauthorized, "gated, private or does not exist"},
		{http.StatusInternalServerError, "", nil, "hub answered 500 Internal Server Error: overloaded"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tt.code != "" {
				w.Header().Set("X-Error-Code", tt.code)
			}
			w.Header().Set("X-Error-Message", "overloaded")
			w.WriteHeader(tt.status)
		}))
		_, err := Resolve(context.Background(), "org/m", Options{Endpoint: srv.URL, CacheDir: t.TempDir()})
		srv.Close()
		if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "org/m@main") {
			t.Errorf("status %d: error %v, want %q", tt.status, err, tt.want)
		}
	}
}

func TestResolveLocal(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	got, err := Resolve(context.Background(), dir, Options{Endpoint: "http://127.0.0.1:1"})
	if err != nil || got != dir {
		t.Errorf("Resolve(local dir) = %s, %v", got, err)
	}
	for _, tt := range []struct{ ref, want string }{
		{"", "empty"},
		{filepath.Join(dir, "missing"), "does not exist"},
		{"./missing", "does not exist"},
		{"a/b/c", "does not exist"},
		{"bad id!", "neither a local directory nor a hub model id"},
		{"org--x/y", "neither a local directory nor a hub model id"},
		{writeFile(t, dir, "file", nil), "is a file"},
	} {
		if _, err := Resolve(context.Background(), tt.ref, Options{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Resolve(%q) error %v, want %q", tt.ref, err, tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Resolve(ctx, "org/name", Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestValidRepoID(t *testing.T) {
	for id, want := range map[string]bool{
		"meta-llama/Llama-3.2-1B": true, "gpt2": true, "a_b/c.d": true,
		"": false, "/x": false, "x/": false, "a/b/c": false, "-a/b": false, "a/b.": false, "a--b/c": false,
		"a/b..c": false, "a b/c": false, strings.Repeat("a", 97): false,
	} {
		if got := validRepoID(id); got != want {
			t.Errorf("validRepoID(%q) = %v, want %v", id, got, want)
		}
	}
}

func ExampleResolve() {
	dir, err := Resolve(context.Background(), "meta-llama/Llama-3.2-1B-Instruct", Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var config struct {
		HiddenSize int `json:"hidden_size"`
	}
	if err := ReadJSON(dir, "config.json", &config); err != nil {
		fmt.Println(err)
		return
	}
	ckpt, err := OpenCheckpoint(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ckpt.Close()
	embed, err := ckpt.Float32("model.embed_tokens.weight")
	fmt.Println(len(embed), err)
}
