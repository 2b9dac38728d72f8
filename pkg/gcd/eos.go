package gcd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gasplab/gasp/pkg/infile"
)

// ModelEOS returns the end-of-sequence tokens of the model in dir: the
// eos_token_id of its generation_config.json (what generation stops on:
// for Llama 3.1 Instruct the list 128001, 128008, 128009) together with
// that of its config.json, each an integer or a list of integers, sorted
// and without duplicates. When neither file names one, it returns v.EOS,
// the special tokens of DefaultEOSNames. A missing file is no error; a
// malformed one, or an id outside v, is.
func ModelEOS(dir string, v *Vocab) ([]int, error) {
	var ids []int
	for _, name := range []string{"generation_config.json", "config.json"} {
		got, err := readEOS(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		for _, id := range got {
			if id < 0 || id >= v.Size() {
				return nil, fmt.Errorf("%s: eos_token_id %d is not a token id (vocabulary 0…%d)", filepath.Join(dir, name), id, v.Size()-1)
			}
		}
		ids = append(ids, got...)
	}
	if len(ids) == 0 {
		return slices.Clone(v.EOS), nil
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// readEOS reads the eos_token_id of a JSON file; nil if the file or the
// field is missing or null.
func readEOS(path string) ([]int, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	data, err := infile.Read(path, 1<<20)
	if err != nil {
		return nil, err
	}
	var f struct {
		EOS json.RawMessage `json:"eos_token_id"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ParseEOSTokenID(f.EOS, path)
}

// ParseEOSTokenID reads an eos_token_id value: an integer, a list of
// integers, or null (nil). where names the file in errors.
func ParseEOSTokenID(raw json.RawMessage, where string) ([]int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one int
	if err := json.Unmarshal(raw, &one); err == nil {
		return []int{one}, nil
	}
	var list []int
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%s: eos_token_id: want an integer or a list of integers, got %s", where, raw)
	}
	return list, nil
}
