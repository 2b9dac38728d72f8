package tokenizer

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// llama3Path is the Llama-3 tokenizer.json that scripts/fetch-tokenizer.sh
// puts into the repository's cache.
var llama3Path = filepath.Join("..", "..", ".cache", "llama3", "tokenizer.json")

var llama3 = sync.OnceValues(func() (*Tokenizer, error) { return Load(llama3Path) })

// loadLlama3 returns the Llama-3 tokenizer, skipping the test when it has
// not been fetched.
func loadLlama3(tb testing.TB) *Tokenizer {
	tb.Helper()
	tok, err := llama3()
	if errors.Is(err, fs.ErrNotExist) {
		tb.Skipf("no Llama-3 tokenizer at %s (run scripts/fetch-tokenizer.sh): %v", llama3Path, err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// readTestdata returns the contents of testdata/name.
func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLlamaBPEVectors checks llama.cpp's test vectors for the Llama-3
// vocabulary (testdata/README.md).
func TestLlamaBPEVectors(t *testing.T) {
	tok := loadLlama3(t)
	inp, out := readTestdata(t, "llama-bpe.inp"), readTestdata(t, "llama-bpe.out")
	// Each input ends with the separator; so each expected line with "\n".
	const sep = "\n__ggml_vocab_test__\n"
	inputs := strings.Split(inp, sep)
	if last := inputs[len(inputs)-1]; last != "" {
		t.Fatalf("llama-bpe.inp does not end with the separator: %q", last)
	}
	inputs = inputs[:len(inputs)-1]
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(inputs) != len(lines) || len(inputs) != 46 {
		t.Fatalf("%d inputs and %d expected lines, want 46 of each", len(inputs), len(lines))
	}
	pass := 0
	for i, in := range inputs {
		want := []int{}
		for f := range strings.FieldsSeq(lines[i]) {
			id, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("llama-bpe.out line %d: %v", i+1, err)
			}
			want = append(want, id)
		}
		got := tok.Encode(in, false)
		if !slices.Equal(got, want) {
			t.Errorf("vector %d %q:\n got %v\nwant %v", i, in, got, want)
			continue
		}
		if dec, err := tok.Decode(got); err != nil || dec != in {
			t.Errorf("vector %d: Decode = %q, %v; want %q", i, dec, err, in)
			continue
		}
		pass++
	}
	t.Logf("%d/%d llama.cpp vectors pass", pass, len(inputs))
}

func TestLlama3Facts(t *testing.T) {
	tok := loadLlama3(t)
	if got := tok.VocabSize(); got != 128256 {
		t.Errorf("VocabSize = %d, want 128256", got)
	}
	if id, ok := tok.BOS(); !ok || id != 128000 {
		t.Errorf("BOS = %d, %v; want 128000", id, ok)
	}
	if id, ok := tok.EOS(); !ok || id != 128001 {
		t.Errorf("EOS = %d, %v; want 128001", id, ok)
	}
	sp := tok.SpecialIDs()
	if len(sp) != 256 || sp[0] != 128000 || sp[255] != 128255 {
		t.Errorf("SpecialIDs: %d ids from %v", len(sp), sp[:min(3, len(sp))])
	}
	for _, c := range []struct {
		text string
		id   int
	}{{"<|eot_id|>", 128009}, {" the", 279}, {"Hello", 9906}, {"\n\n", 271}, {"!", 0}} {
		if id, ok := tok.ID(c.text); !ok || id != c.id {
			t.Errorf("ID(%q) = %d, %v; want %d", c.text, id, ok, c.id)
		}
		if got := string(tok.Token(c.id)); got != c.text {
			t.Errorf("Token(%d) = %q, want %q", c.id, got, c.text)
		}
	}
	if _, ok := tok.ID("Ġthe"); ok {
		t.Error(`ID("Ġthe") found a token: ID takes bytes, not byte-level names`)
	}
	if got := tok.Name(279); got != "Ġthe" {
		t.Errorf("Name(279) = %q, want Ġthe", got)
	}
	if !tok.IsSpecial(128009) || tok.IsSpecial(279) || tok.IsSpecial(-1) || tok.IsSpecial(1<<30) {
		t.Error("IsSpecial is wrong")
	}
	if tok.Token(-1) != nil || tok.Token(128256) != nil || tok.Name(128256) != "" || tok.Valid(128256) || !tok.Valid(0) {
		t.Error("out-of-range ids are not handled")
	}
}

func TestEncodeSpecial(t *testing.T) {
	tok := loadLlama3(t)
	text := "hi<|eot_id|><|eot_id|>x<|begin_of_text|"
	got := tok.Encode(text, false)
	want := []int{6151, 128009, 128009, 87, 27, 91, 7413, 3659, 4424, 91}
	if !slices.Equal(got, want) {
		t.Errorf("Encode(%q) = %v, want %v", text, got, want)
	}
	// As text, "<|eot_id|>" is ordinary characters.
	asText := tok.EncodeWith(text, EncodeOptions{SpecialAsText: true})
	if slices.Contains(asText, 128009) {
		t.Errorf("SpecialAsText: %v has <|eot_id|>", asText)
	}
	if dec, _ := tok.Decode(asText); dec != text {
		t.Errorf("SpecialAsText round trip: %q", dec)
	}
	if plain := tok.Encode("<|eot_id|>", false); !slices.Equal(plain, []int{128009}) {
		t.Errorf("Encode(<|eot_id|>) = %v", plain)
	}
	// AddSpecial puts BOS in front (the npm copy of tokenizer.json has no
	// template; see Encode).
	if got := tok.Encode("Hello world", true); !slices.Equal(got, []int{128000, 9906, 1917}) {
		t.Errorf("Encode(addSpecial) = %v", got)
	}
	if got := tok.Encode("", true); !slices.Equal(got, []int{128000}) {
		t.Errorf("Encode(\"\", true) = %v", got)
	}
	if got := tok.Encode("", false); len(got) != 0 {
		t.Errorf("Encode(\"\", false) = %v", got)
	}
}

func TestDecode(t *testing.T) {
	tok := loadLlama3(t)
	ids := []int{128000, 9906, 128009, 1917}
	if got, err := tok.Decode(ids); err != nil || got != "<|begin_of_text|>Hello<|eot_id|> world" {
		t.Errorf("Decode = %q, %v", got, err)
	}
	got, err := tok.AppendDecode([]byte("> "), ids, DecodeOptions{SkipSpecial: true})
	if err != nil || string(got) != "> Hello world" {
		t.Errorf("AppendDecode(SkipSpecial) = %q, %v", got, err)
	}
	for _, bad := range [][]int{{-1}, {9906, 128256}, {1 << 40}} {
		if _, err := tok.Decode(bad); err == nil {
			t.Errorf("Decode(%v): no error", bad)
		}
	}
	// A token that is part of a UTF-8 sequence decodes to its bytes.
	if got, _ := tok.Decode([]int{9468}); got != "\xf0\x9f" {
		t.Errorf("Decode(9468) = %q", got)
	}
}

func TestRoundTrip(t *testing.T) {
	tok := loadLlama3(t)
	r := rand.New(rand.NewPCG(3, 4))
	check := func(s string) {
		t.Helper()
		for _, o := range []EncodeOptions{{}, {SpecialAsText: true}} {
			ids := tok.EncodeWith(s, o)
			if got, err := tok.Decode(ids); err != nil || got != s {
				t.Fatalf("Decode(EncodeWith(%q, %+v)) = %q, %v", s, o, got, err)
			}
		}
	}
	for range 5000 {
		check(randomString(r, genOptions{jsDiffers: true}))
	}
	// Not UTF-8.
	for range 2000 {
		b := make([]byte, r.IntN(20))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		check(string(b))
	}
	check(strings.Repeat("a", 100000))
	check(strings.Repeat("🦙 ", 10000))
	check(strings.Repeat("\xff", 1000))
}

// TestBPELong checks that the heap-based merge gives the same ids as the
// rescanning one.
func TestBPELong(t *testing.T) {
	tok := loadLlama3(t)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 3000 {
		var w string
		switch i % 3 {
		case 0:
			w = randomString(r, genOptions{})
		case 1:
			w = strings.Repeat(pick(r, genWords), 1+r.IntN(4))
		default:
			w = strings.Repeat(pick(r, []string{"a", "ab", "-", " ", "é", "10"}), 2+r.IntN(60))
		}
		if len(w) < 2 || len(w) > shortPiece {
			continue
		}
		if a, b := tok.bpe(w), tok.bpeLong(w); !slices.Equal(a, b) {
			t.Fatalf("bpe(%q) = %v, bpeLong = %v", w, a, b)
		}
	}
}

func TestConcurrentEncode(t *testing.T) {
	tok := loadLlama3(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range 500 {
				s := randomString(r, genOptions{})
				if got, _ := tok.Decode(tok.Encode(s, false)); got != s {
					t.Errorf("round trip of %q: %q", s, got)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestChat(t *testing.T) {
	tok := loadLlama3(t)
	want := "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n" +
		"Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n" +
		"<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n" +
		"What is 2+2?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
	if got := ChatText("  What is 2+2?\n", ChatOptions{}); got != want {
		t.Errorf("ChatText = %q\nwant %q", got, want)
	}
	ids := tok.ChatPrompt("  What is 2+2?\n", ChatOptions{})
	wantIDs := []int{128000, 128006, 9125, 128007, 271, 38766, 1303, 33025, 2696, 25, 6790, 220, 2366, 18, 198,
		15724, 2696, 25, 220, 1627, 10263, 220, 2366, 19, 271, 128009, 128006, 882, 128007, 271,
		3923, 374, 220, 17, 10, 17, 30, 128009, 128006, 78191, 128007, 271}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("ChatPrompt =\n%v\nwant\n%v", ids, wantIDs)
	}
	if got := ChatText("x", ChatOptions{Date: "01 Jan 2025", System: " Be brief. "}); !strings.Contains(got,
		"Today Date: 01 Jan 2025\n\nBe brief.<|eot_id|>") {
		t.Errorf("ChatText with date and system: %q", got)
	}
	// Content as text: the same ids when the message has no special-token
	// text, and no special token from the message when it has.
	r := rand.New(rand.NewPCG(8, 9))
	for range 300 {
		msg := randomString(r, genOptions{})
		o := ChatOptions{System: randomString(r, genOptions{})}
		a := tok.ChatPrompt(msg, o)
		o.ContentAsText = true
		b := tok.ChatPrompt(msg, o)
		if !strings.Contains(msg+o.System, "<|") && !slices.Equal(a, b) {
			t.Fatalf("ChatPrompt(%q) differs with ContentAsText:\n%v\n%v", msg, a, b)
		}
		if n := countSpecial(tok, b); n != 9 {
			t.Fatalf("ChatPrompt(%q, ContentAsText) has %d special tokens, want 9", msg, n)
		}
		if got, _ := tok.Decode(b); got != ChatText(msg, o) {
			t.Fatalf("ChatPrompt(%q, ContentAsText) decodes to %q", msg, got)
		}
	}
}

func countSpecial(tok *Tokenizer, ids []int) int {
	n := 0
	for _, id := range ids {
		if tok.IsSpecial(id) {
			n++
		}
	}
	return n
}
