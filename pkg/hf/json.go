package hf

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/jsontext"
)

// ReadJSON reads the JSON file name in dir into v. Errors name the file; syntax and type errors also give the
// line and column (1-based) where they occur.
func ReadJSON(dir, name string, v any) error {
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
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
