package earley

// Parser recognizes a byte string incrementally: it consumes bytes only while
// the prefix stays viable (extends to a sentence), answers whether the
// prefix is a sentence, and rolls back to any earlier length in O(1).
type Parser struct {
	m      *Machine
	states []State // states[i] is the State after i bytes
	input  []byte
}

// Checkpoint is a position a Parser can roll back to: the number of bytes
// consumed when it was taken.
type Checkpoint int

// NewParser returns a Parser at the empty prefix.
func (m *Machine) NewParser() *Parser {
	return &Parser{m: m, states: []State{m.start}}
}

// Machine returns the Machine the parser runs on.
func (p *Parser) Machine() *Machine { return p.m }

// Feed consumes b if the prefix followed by b is viable and reports whether
// it did; otherwise the parser is unchanged.
func (p *Parser) Feed(b byte) bool {
	s := p.m.Step(p.states[len(p.states)-1], b)
	if s == Dead {
		return false
	}
	p.states = append(p.states, s)
	p.input = append(p.input, b)
	return true
}

// FeedBytes consumes bs if the prefix followed by all of bs is viable and
// reports whether it did; otherwise the parser is unchanged.
func (p *Parser) FeedBytes(bs []byte) bool {
	cp := p.Checkpoint()
	for _, b := range bs {
		if !p.Feed(b) {
			p.Rollback(cp)
			return false
		}
	}
	return true
}

// State returns the Machine State of the current prefix.
func (p *Parser) State() State { return p.states[len(p.states)-1] }

// Complete reports whether the consumed prefix is a sentence.
func (p *Parser) Complete() bool { return p.m.Accepting(p.State()) }

// Len returns the number of bytes consumed.
func (p *Parser) Len() int { return len(p.input) }

// Bytes returns the consumed prefix. The slice is valid until the next Feed
// or Rollback.
func (p *Parser) Bytes() []byte { return p.input }

// Checkpoint returns the current position.
func (p *Parser) Checkpoint() Checkpoint { return Checkpoint(len(p.input)) }

// Rollback returns the parser to checkpoint c, which must not be beyond the
// current position. Rolling back keeps the states below c, so it is O(1).
func (p *Parser) Rollback(c Checkpoint) {
	if int(c) < 0 || int(c) > len(p.input) {
		panic("earley: Rollback beyond the current position")
	}
	p.states = p.states[:c+1]
	p.input = p.input[:c]
}
