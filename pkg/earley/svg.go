package earley

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Layout of SVG, in pixels. Labels are set in a monospace font, so a
// label's width is its length in characters times charW.
const (
	svgCharW   = 7.2 // advance of one character at svgFont
	svgFont    = 12
	svgPad     = 5  // horizontal padding inside a box
	svgBoxH    = 20 // box height
	svgLevelH  = 46 // vertical distance between depths
	svgGap     = 8  // horizontal gap between sibling subtrees
	svgMargin  = 10
	svgMaxText = 40 // characters of a terminal run shown before "…"
)

// SVG draws the tree as an SVG image: rule nodes as boxes labelled with
// their names, and each run of consecutive terminal leaves under one node
// as a single box holding the text it spans (a space shown as ␣, a newline
// as ⏎, a tab as ⇥), children centred under their parent. Call Flatten
// first to hide the rules the grammar compiler generated.
//
// The drawing is a function of the tree and input alone. Spans outside
// input are clipped to it. Rule boxes have the class "nt", terminal boxes
// the class "t"; their text elements the classes "nt-label" and "t-label".
func (n *Node) SVG(input []byte) []byte {
	var b bytes.Buffer
	if n == nil {
		b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"></svg>` + "\n")
		return b.Bytes()
	}
	root := svgBuild(n, input)
	svgMeasure(root)
	depth := svgPlace(root, svgMargin, 0)
	w := root.width + 2*svgMargin
	h := float64(depth)*svgLevelH + svgBoxH + 2*svgMargin
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="monospace" font-size="%d">`+"\n",
		w, h, w, h, svgFont)
	b.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>` + "\n")
	svgEdges(&b, root)
	svgBoxes(&b, root)
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// svgNode is a node of the drawing: a rule, or a run of terminal bytes.
type svgNode struct {
	label    string
	terminal bool
	children []*svgNode
	labelW   float64 // box width
	width    float64 // subtree width
	x, y     float64 // box centre (x) and top (y)
}

// svgBuild converts the parse tree, merging consecutive leaves.
func svgBuild(n *Node, input []byte) *svgNode {
	if n.Rule < 0 && len(n.Children) == 0 {
		return &svgNode{label: svgText(input, n.Start, n.End), terminal: true}
	}
	s := &svgNode{label: n.Name}
	if s.label == "" {
		s.label = "?"
	}
	for i := 0; i < len(n.Children); {
		c := n.Children[i]
		if c == nil {
			i++
			continue
		}
		if c.Rule >= 0 || len(c.Children) > 0 {
			s.children = append(s.children, svgBuild(c, input))
			i++
			continue
		}
		// A run of leaves: from the first one's start to the last one's end.
		start, end := c.Start, c.End
		for i++; i < len(n.Children); i++ {
			d := n.Children[i]
			if d == nil {
				continue
			}
			if d.Rule >= 0 || len(d.Children) > 0 {
				break
			}
			end = d.End
		}
		s.children = append(s.children, &svgNode{label: svgText(input, start, end), terminal: true})
	}
	return s
}

// svgText returns input[start:end], clipped, with whitespace made visible
// and long runs shortened.
func svgText(input []byte, start, end int) string {
	start = min(max(start, 0), len(input))
	end = min(max(end, start), len(input))
	s := strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '␣'
		case r == '\n':
			return '⏎'
		case r == '\t':
			return '⇥'
		case r < 0x20 || r == 0x7f || r == 0xFFFE || r == 0xFFFF:
			return '\uFFFD' // not allowed in XML
		}
		return r
	}, strings.ToValidUTF8(string(input[start:end]), "\uFFFD"))
	if utf8.RuneCountInString(s) > svgMaxText {
		s = string([]rune(s)[:svgMaxText-1]) + "…"
	}
	return s
}

// svgMeasure sets every node's box and subtree widths.
func svgMeasure(s *svgNode) {
	s.labelW = float64(utf8.RuneCountInString(s.label))*svgCharW + 2*svgPad
	sum := 0.0
	for i, c := range s.children {
		svgMeasure(c)
		if i > 0 {
			sum += svgGap
		}
		sum += c.width
	}
	s.width = max(s.labelW, sum)
}

// svgPlace lays out the subtree of s in [x0, x0+s.width) at depth d, and
// returns the largest depth below it.
func svgPlace(s *svgNode, x0 float64, d int) int {
	s.y = svgMargin + float64(d)*svgLevelH
	if len(s.children) == 0 {
		s.x = x0 + s.width/2
		return d
	}
	sum := float64(len(s.children)-1) * svgGap
	for _, c := range s.children {
		sum += c.width
	}
	x := x0 + (s.width-sum)/2
	deepest := d
	for _, c := range s.children {
		deepest = max(deepest, svgPlace(c, x, d+1))
		x += c.width + svgGap
	}
	s.x = (s.children[0].x + s.children[len(s.children)-1].x) / 2
	return deepest
}

func svgEdges(b *bytes.Buffer, s *svgNode) {
	for _, c := range s.children {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999999"/>`+"\n", s.x, s.y+svgBoxH, c.x, c.y)
		svgEdges(b, c)
	}
}

func svgBoxes(b *bytes.Buffer, s *svgNode) {
	class, fill, stroke, text := "nt", "#efe8f7", "#7b5ea7", "#3d2a5c"
	if s.terminal {
		class, fill, stroke, text = "t", "#e5f3e1", "#4a8a3f", "#1f4d17"
	}
	fmt.Fprintf(b, `<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%d" rx="4" fill="%s" stroke="%s"/>`+"\n",
		class, s.x-s.labelW/2, s.y, s.labelW, svgBoxH, fill, stroke)
	fmt.Fprintf(b, `<text class="%s-label" x="%.1f" y="%.1f" text-anchor="middle" fill="%s">%s</text>`+"\n",
		class, s.x, s.y+svgBoxH-6, text, svgEscape(s.label))
	for _, c := range s.children {
		svgBoxes(b, c)
	}
}

// svgEscape escapes text for XML character data.
func svgEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
