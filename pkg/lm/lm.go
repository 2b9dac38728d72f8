package lm

// Model is a language model that samplers can drive.
type Model interface {
	// VocabSize returns the number of token ids: logits have this length.
	VocabSize() int
	// NewSession returns a session of rows empty rows.
	NewSession(rows int) (Session, error)
}

// Session is a batch of rows decoded together over a KV cache: the low-level
// interface a model implements. Lengths and positions count every token in a
// row, prompt included. The Session must not modify logits it has returned
// (callers keep them and do not modify them either). A Session need not be
// safe for concurrent use.
type Session interface {
	// Prefill sets every row to prompt and returns the logits of the token
	// that follows it.
	Prefill(prompt []int) ([]float32, error)
	// Step appends tokens[j] to row rows[j] for every j, in one batched
	// evaluation, and returns for each j the logits of the token that
	// follows in row rows[j]. The rows are distinct.
	Step(tokens, rows []int) ([][]float32, error)
	// Truncate shortens row to length tokens, keeping the cache of the
	// first length positions.
	Truncate(row, length int) error
	// Close releases the session.
	Close()
}
