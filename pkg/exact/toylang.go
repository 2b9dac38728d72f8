package exact

// Lang enumerates the toy's language with its exact probabilities (see
// Enumerate; at most limit sentences).
func (t *Toy) Lang(limit int) (*Lang, error) {
	return Enumerate(t.Model, t.Prompt, t.Config, limit)
}
