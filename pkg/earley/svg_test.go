package earley

import (
	"bytes"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/grammar"
)

// svgLabel is one label of a drawing as read back from the SVG.
type svgLabel struct {
	class, text string
	x, y        float64
}

// svgBox is one box of a drawing.
type svgBox struct{ x, y, w, h float64 }

// readSVG parses an SVG written by Node.SVG (it must be well-formed XML)
// and returns its labels in document order, its boxes and the image's size.
func readSVG(t *testing.T, data []byte) (labels []svgLabel, boxes []svgBox, w, h float64) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var cur *svgLabel
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, data)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			num := func(name string) float64 {
				v, err := strconv.ParseFloat(attr[name], 64)
				if err != nil {
					t.Fatalf("<%s %s=%q>: %v", e.Name.Local, name, attr[name], err)
				}
				return v
			}
			switch e.Name.Local {
			case "svg":
				w, h = num("width"), num("height")
			case "text":
				cur = &svgLabel{class: attr["class"], x: num("x"), y: num("y")}
			case "rect":
				if attr["class"] != "" {
					boxes = append(boxes, svgBox{num("x"), num("y"), num("width"), num("height")})
				}
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(e)
			}
		case xml.EndElement:
			if e.Name.Local == "text" && cur != nil {
				labels = append(labels, *cur)
				cur = nil
			}
		}
	}
	return labels, boxes, w, h
}

func TestSVG(t *testing.T) {
	src := `root ::= "(" expr ")"
expr ::= num | expr " <&> " num
num ::= [0-9]+
`
	g, _, err := grammar.Compile("t.gbnf", []byte(src), grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	input := []byte("(12 <&> 3 <&> 45)")
	tree, err := Parse(g, input)
	if err != nil {
		t.Fatal(err)
	}
	tree = tree.Flatten(g)
	svg := tree.SVG(input)
	if !bytes.Equal(svg, tree.SVG(input)) {
		t.Error("two drawings of the same tree differ")
	}
	labels, boxes, w, h := readSVG(t, svg)
	if w <= 0 || h <= 0 {
		t.Errorf("size %gx%g", w, h)
	}
	if len(boxes) != len(labels) {
		t.Errorf("%d boxes for %d labels", len(boxes), len(labels))
	}
	for i, a := range boxes {
		if a.x < 0 || a.y < 0 || a.x+a.w > w || a.y+a.h > h {
			t.Errorf("box %v outside the %gx%g image", a, w, h)
		}
		for _, b := range boxes[i+1:] {
			if a.x < b.x+b.w && b.x < a.x+a.w && a.y < b.y+b.h && b.y < a.y+a.h {
				t.Errorf("boxes %v and %v overlap", a, b)
			}
		}
	}

	// Terminal boxes, read in document order (a pre-order walk), spell the
	// input, whitespace shown as ␣; rule boxes carry the rule names.
	var text strings.Builder
	rules := map[string]int{}
	for _, l := range labels {
		if l.x < 0 || l.x > w || l.y < 0 || l.y > h {
			t.Errorf("label %q at (%g, %g) outside the %gx%g image", l.text, l.x, l.y, w, h)
		}
		switch l.class {
		case "t-label":
			text.WriteString(l.text)
		case "nt-label":
			rules[l.text]++
		default:
			t.Errorf("label %q has class %q", l.text, l.class)
		}
	}
	if want := strings.ReplaceAll(string(input), " ", "␣"); text.String() != want {
		t.Errorf("terminal boxes spell %q, want %q", text.String(), want)
	}
	if rules["root"] != 1 || rules["expr"] != 3 || rules["num"] != 3 {
		t.Errorf("rule boxes %v, want root 1, expr 3, num 3", rules)
	}

	// Children are drawn below their parent, and siblings left to right:
	// the terminal boxes of the top level come in input order.
	var xs []float64
	for _, l := range labels {
		if l.class == "t-label" && (l.text == "(" || l.text == ")") {
			xs = append(xs, l.x)
			if l.y <= labels[0].y {
				t.Errorf("child %q at y %g, not below the root at %g", l.text, l.y, labels[0].y)
			}
		}
	}
	if len(xs) != 2 || xs[0] >= xs[1] {
		t.Errorf("the parentheses are at x %v, want two, left to right", xs)
	}
}

func TestSVGBadInput(t *testing.T) {
	var nilTree *Node
	readSVG(t, nilTree.SVG(nil))
	// A hand-made tree with spans past the input, a nil child, control
	// bytes and invalid UTF-8 still gives well-formed XML.
	tree := &Node{Rule: 0, Name: "r", Start: 0, End: 9, Children: []*Node{
		{Rule: -1, Start: 0, End: 1}, nil, {Rule: -1, Start: 1, End: 2},
		{Rule: 1, Start: 2, End: 50, Children: []*Node{{Rule: -1, Start: 2, End: 50}}},
	}}
	labels, _, _, _ := readSVG(t, tree.SVG([]byte("\x01\xff<")))
	if len(labels) != 4 {
		t.Errorf("%d labels, want 4 (r, one run of two leaves, ?, its leaf): %v", len(labels), labels)
	}
}
