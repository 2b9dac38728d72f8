package hf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
		var (
			syn *json.SyntaxError
			typ *json.UnmarshalTypeError
		)
		switch {
		case errors.As(err, &syn):
			line, col := lineCol(data, syn.Offset)
			return fmt.Errorf("hf: %s:%d:%d: %w", path, line, col, err)
		case errors.As(err, &typ):
			line, col := lineCol(data, typ.Offset)
			return fmt.Errorf("hf: %s:%d:%d: %w", path, line, col, err)
		}
		return fmt.Errorf("hf: %s: %w", path, err)
	}
	return nil
}

// lineCol converts a byte offset in data to a 1-based line and column (in bytes). The offset of a
// json.SyntaxError is just past the offending byte, so it names that byte's position.
func lineCol(data []byte, offset int64) (line, col int) {
	offset = max(0, min(offset, int64(len(data))))
	before := data[:offset]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}
