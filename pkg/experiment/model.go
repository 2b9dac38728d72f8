package experiment

import (
	"context"

	"github.com/gasplab/gasp/pkg/model"
)

// Model is model.Model.
//
// Deprecated: use package model, which notebooks can use without the grid.
type Model = model.Model

// LlamaLM is model.LM.
//
// Deprecated: use package model.
type LlamaLM = model.LM

// OpenModel is model.Open.
//
// Deprecated: use model.Open.
func OpenModel(ctx context.Context, ref string) (*model.Model, error) { return model.Open(ctx, ref) }
