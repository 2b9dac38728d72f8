package hf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/gomlx/go-huggingface/hub"
)

// hubClient makes the requests that Resolve sends itself (revision info, and probes that explain a failed
// download); go-huggingface does the downloads.
type hubClient struct {
	endpoint, token string
	client          *http.Client
}

func newHubClient(s settings) *hubClient {
	return &hubClient{
		endpoint: s.endpoint,
		token:    s.token,
		client: &http.Client{
			// Report redirects rather than follow them: a probe only needs the status, and the
			// Authorization header must not travel to another host.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// revisionInfo is the part of the hub's /api/models/{id}/revision/{rev} answer that Resolve uses.
type revisionInfo struct {
	SHA      string `json:"sha"`
	Siblings []struct {
		Name string `json:"rfilename"`
	} `json:"siblings"`
}

func (h *hubClient) do(ctx context.Context, method, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, err
	}
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	req.Header.Set("User-Agent", "gasp-hf/1 "+hub.DefaultHttpUserAgent())
	return h.client.Do(req)
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// info fetches the revision info of a model.
func (h *hubClient) info(ctx context.Context, id, rev string) (*revisionInfo, error) {
	u := fmt.Sprintf("%s/api/models/%s/revision/%s", h.endpoint, escapePath(id), url.PathEscape(rev))
	resp, err := h.do(ctx, http.MethodGet, u)
	if err != nil {
		return nil, h.networkError(ctx, id, rev, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, h.statusError(id, rev, "", resp)
	}
	var info revisionInfo
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&info); err != nil {
		return nil, fmt.Errorf("hf: %s@%s: malformed revision info from %s: %w", id, rev, h.endpoint, err)
	}
	if !validCommitDir(info.SHA) {
		return nil, fmt.Errorf("hf: %s@%s: revision info from %s has no valid commit (sha %q)", id, rev, h.endpoint, info.SHA)
	}
	return &info, nil
}

// probe sends a HEAD request for a file and returns nil if the hub serves it, else an error that says why.
func (h *hubClient) probe(ctx context.Context, id, rev, commit, file string) error {
	u := fmt.Sprintf("%s/%s/resolve/%s/%s", h.endpoint, escapePath(id), url.PathEscape(commit), escapePath(file))
	resp, err := h.do(ctx, http.MethodHead, u)
	if err != nil {
		return h.networkError(ctx, id, rev, err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 400 {
		return nil
	}
	return h.statusError(id, rev, file, resp)
}

func (h *hubClient) networkError(ctx context.Context, id, rev string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("hf: %s@%s: cannot reach %s (set HF_HUB_OFFLINE=1 to use the local cache): %w", id, rev, h.endpoint, err)
}

// statusError turns a failed hub answer into an error that says what to do.
func (h *hubClient) statusError(id, rev, file string, resp *http.Response) error {
	code := resp.Header.Get("X-Error-Code")
	what := "model " + id
	if file != "" {
		what = "file " + file + " of " + id
	}
	hint := "accept its terms on the hub and set HF_TOKEN (or Options.Token) to a token of that account"
	if h.token != "" {
		hint = "the token given was refused or its account has no access (accept the model's terms on the hub; check HF_TOKEN)"
	}
	switch {
	case code == "GatedRepo" || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("hf: %s@%s: %w (%s): access to %s is restricted (gated or private model): %s",
			id, rev, ErrUnauthorized, resp.Status, id, hint)
	case resp.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("hf: %s@%s: %w (%s): %s is gated, private or does not exist: %s",
			id, rev, ErrUnauthorized, resp.Status, what, hint)
	case code == "RevisionNotFound":
		return fmt.Errorf("hf: %s@%s: revision %q %w on %s (%s)", id, rev, rev, ErrNotFound, h.endpoint, resp.Status)
	case code == "EntryNotFound" || resp.StatusCode == http.StatusNotFound && file != "":
		return fmt.Errorf("hf: %s@%s: file %s %w (%s)", id, rev, file, ErrNotFound, resp.Status)
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("hf: %s@%s: model %s %w on %s (%s); check the id and revision", id, rev, id, ErrNotFound, h.endpoint, resp.Status)
	}
	msg := resp.Header.Get("X-Error-Message")
	if msg != "" {
		msg = ": " + msg
	}
	return fmt.Errorf("hf: %s@%s: %s: hub answered %s%s", id, rev, what, resp.Status, msg)
}

// hubSource downloads a model's files into the cache with go-huggingface.
type hubSource struct {
	id, rev string
	client  *hubClient
	info    *revisionInfo
	repo    *hub.Repo
	files   map[string]bool // from info.Siblings; nil if the hub did not list them
}

func (h *hubSource) has(ctx context.Context, file string) (bool, error) {
	if h.files != nil {
		return h.files[file], nil
	}
	err := h.client.probe(ctx, h.id, h.rev, h.info.SHA, file)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (h *hubSource) fetch(ctx context.Context, file string) (string, error) {
	path, err := h.repo.DownloadFile(file)
	if err != nil {
		if perr := h.client.probe(ctx, h.id, h.rev, h.info.SHA, file); perr != nil {
			return "", perr
		}
		return "", fmt.Errorf("hf: %s@%s: downloading %s: %w", h.id, h.rev, file, err)
	}
	return path, nil
}

func (h *hubSource) missing(file string) error {
	return fmt.Errorf("hf: %s@%s: file %s %w in the repository", h.id, h.rev, file, ErrNotFound)
}

// resolveOnline downloads the files of revision s.revision of model id into the cache.
func resolveOnline(ctx context.Context, id string, s settings, files []string) (string, error) {
	client := newHubClient(s)
	info, err := client.info(ctx, id, s.revision)
	if err != nil {
		return "", err
	}
	// Pin the commit that the revision names now, so that every file comes from the same snapshot even if the
	// branch moves meanwhile.
	repo := hub.New(id).
		WithEndpoint(s.endpoint).
		WithCacheDir(s.cacheDir).
		WithAuth(s.token).
		WithRevision(info.SHA).
		WithProgressBar(false)
	repo.Verbosity = 0
	repo.MaxParallelDownload = 1
	src := &hubSource{id: id, rev: s.revision, client: client, info: info, repo: repo}
	if len(info.Siblings) > 0 {
		src.files = make(map[string]bool, len(info.Siblings))
		for _, f := range info.Siblings {
			src.files[f.Name] = true
		}
	}
	if err := fetchFiles(ctx, src, files); err != nil {
		return "", err
	}
	repoDir := repoCacheDir(s.cacheDir, id)
	snap := filepath.Join(repoDir, "snapshots", info.SHA)
	if files != nil && len(files) == 0 {
		// Nothing was downloaded: make sure the snapshot directory exists all the same.
		if err := ensureDir(snap); err != nil {
			return "", err
		}
	}
	if err := writeRef(repoDir, s.revision, info.SHA); err != nil {
		return "", err
	}
	return snap, nil
}
