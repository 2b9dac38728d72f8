package hf

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/jsontext"
)

// MaxJSONBytes bounds the JSON files of a model directory (config.json, generation_config.json, a
// checkpoint's index): they have a few KB, the index of a 400B model a few hundred.
const MaxJSONBytes = 64 << 20

// ReadJSON reads the JSON file name in dir, a regular file of at most MaxJSONBytes, into v. Errors name the
// file; syntax and type errors also give the line and column (1-based) where they occur.
func ReadJSON(dir, name string, v any) error {
	path := filepath.Join(dir, name)
	data, err := infile.Read(path, MaxJSONBytes)
	if err != nil {
		return fmt.Errorf("hf: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		if line, col, ok := jsontext.ErrorPosition(data, err); ok {
			return fmt.Errorf("hf: %s:%d:%d: %w", path, line, col, err)
		}
		return fmt.Errorf("hf: %s: %w", path, err)
	}
	return nil
}
