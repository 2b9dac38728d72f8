package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/membound"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// defaultTokenizer is where scripts/fetch-tokenizer.sh puts Llama 3's
// tokenizer.json.
const defaultTokenizer = ".cache/llama3/tokenizer.json"

func runTokenize(args []string, stdout, stderr io.Writer) int {
	return runTokenizeIO(args, os.Stdin, stdout, stderr)
}

// runTokenizeIO is "gasp tokenize" reading its input from stdin.
func runTokenizeIO(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp tokenize", "gasp tokenize [--tokenizer PATH] [--jsonl] [--special-as-text] [--bos]", `
Encodes text to token ids with a Hugging Face tokenizer.json of a BPE model
(byte-level: Llama 3, Qwen, DeepSeek-V3, GPT-2; SentencePiece: Llama 2,
Mistral, Gemma; see pkg/tokenizer), as Hugging Face tokenizers does.

Reads all of standard input as one text and prints its ids separated by
spaces. With --jsonl, each input line is a JSON string and each output line
the JSON array of its ids, so that one process encodes many strings. A text
(or a line) may have at most 1 GiB, or 1/64 of the memory gasp may use if
that is less: encoding takes up to about 64 bytes of memory per byte of text
(measured with Llama 3's tokenizer; a SentencePiece tokenizer without a
pre-tokenizer, such as Llama 2's, merges all text between special tokens as
one piece and may take more).

The text of special tokens, such as <|eot_id|>, becomes the special token
unless --special-as-text is given. --bos adds the special tokens of the
tokenizer's post-processor (for Llama 3, <|begin_of_text|> in front).`, stdout, stderr)
	tokPath := cl.String("tokenizer", defaultTokenizer, "Hugging Face tokenizer.json")
	jsonl := cl.Bool("jsonl", false, "input lines are JSON strings; print a JSON array of ids per line")
	asText := cl.Bool("special-as-text", false, "encode special-token text such as <|eot_id|> as ordinary text")
	bos := cl.Bool("bos", false, "add the post-processor's special tokens (BOS)")
	pos, done, code := cl.parse(args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return cl.usageError("unexpected arguments %q (the text is read from standard input)", pos)
	}
	tok, err := loadTokenizer(*tokPath)
	if err != nil {
		return cl.fail(err)
	}
	opts := tokenizer.EncodeOptions{AddSpecial: *bos, SpecialAsText: *asText}
	w := bufio.NewWriter(stdout)
	limit := tokenizeLimit()
	if !*jsonl {
		var text strings.Builder // whose String does not copy
		if _, err := io.Copy(&text, io.LimitReader(stdin, limit+1)); err != nil {
			return cl.fail(err)
		}
		if int64(text.Len()) > limit {
			return cl.fail(fmt.Errorf("standard input: more than %d bytes (%s); --jsonl encodes line by line", limit, tokenizeLimitWhy()))
		}
		if err := writeIDs(w, tok.EncodeWith(text.String(), opts), 0, ' ', "\n"); err != nil {
			return cl.fail(err)
		}
	} else if err := tokenizeLines(tok, opts, stdin, w, limit); err != nil {
		w.Flush()
		return cl.fail(err)
	}
	if err := w.Flush(); err != nil {
		return cl.fail(err)
	}
	return 0
}

// loadTokenizer loads the tokenizer.json at path, given by --tokenizer.
func loadTokenizer(path string) (*tokenizer.Tokenizer, error) {
	if err := checkInput("--tokenizer", path, maxTokenizerBytes); err != nil {
		return nil, err
	}
	return tokenizer.Load(path)
}

// tokenizeBytesPerByte is the memory tokenize takes per byte of a text:
// the text, its ids (8 bytes each, about one a byte for random bytes on a
// small vocabulary) and their growth, with the collector's headroom.
// Measured: peak RSS 34 times the input for 50 MB of random bytes, and 44
// times a line of 20 MB of "a" (one BPE word), on the embedded model's
// tokenizer; the campaign saw 66 for a 50 MB line on Llama 3's.
const tokenizeBytesPerByte = 64

// tokenizeLimit is the most bytes of a text, or of a line with --jsonl,
// that tokenize reads: 1 GiB, or less where memory is less.
func tokenizeLimit() int64 {
	return min(1<<30, int64(membound.Total()/tokenizeBytesPerByte))
}

// tokenizeLimitWhy says where tokenizeLimit comes from.
func tokenizeLimitWhy() string {
	return fmt.Sprintf("encoding takes about %d bytes of memory a byte, and gasp may use %s", tokenizeBytesPerByte, membound.Bytes(membound.Total()))
}

// writeIDs writes open (none if 0), ids separated by sep, and end, a few ids at a
// time: the output of a large text is not held whole.
func writeIDs(w *bufio.Writer, ids []int, open, sep byte, end string) error {
	var b []byte
	if open != 0 {
		w.WriteByte(open)
	}
	for len(ids) > 0 {
		n := min(len(ids), 4096)
		b = appendIDs(b, ids[:n], sep)
		if len(ids) > n {
			b = append(b, sep)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		b, ids = b[:0], ids[n:]
	}
	_, err := w.WriteString(end)
	return err
}

// tokenizeLines encodes each JSON-string line of r, of at most limit
// bytes, and writes the ids as a JSON array line.
func tokenizeLines(tok *tokenizer.Tokenizer, opts tokenizer.EncodeOptions, r io.Reader, w *bufio.Writer, limit int64) error {
	br := bufio.NewReader(r)
	var ids []int
	for n := 1; ; n++ {
		line, err := readLine(br, limit)
		if errors.Is(err, errLongLine) {
			return fmt.Errorf("line %d: more than %d bytes (%s)", n, limit, tokenizeLimitWhy())
		}
		if len(line) == 0 && err == io.EOF {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		var text string
		if jerr := json.Unmarshal(line, &text); jerr != nil {
			return fmt.Errorf("line %d: want a JSON string: %w", n, jerr)
		}
		ids = tok.AppendEncode(ids[:0], text, opts)
		if err := writeIDs(w, ids, '[', ',', "]\n"); err != nil {
			return err
		}
		if err == io.EOF {
			return nil
		}
	}
}

var errLongLine = errors.New("line too long")

// readLine returns the next line of br, its newline included, or
// errLongLine as soon as it has more than limit bytes, before it is read
// whole.
func readLine(br *bufio.Reader, limit int64) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if int64(len(line))+int64(len(frag)) > limit {
			return nil, errLongLine
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// appendIDs appends ids separated by sep.
func appendIDs(b []byte, ids []int, sep byte) []byte {
	for i, id := range ids {
		if i > 0 {
			b = append(b, sep)
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return b
}

func runBenchTokenize(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp bench tokenize", "gasp bench tokenize [--tokenizer PATH] [--mb N] [--passes P] [--text FILE]", `
Measures the encoding speed of pkg/tokenizer in MB/s: encodes N MB of text
P times on one goroutine and reports each pass (the first with a cold BPE
cache) and the best. The text is FILE, repeated to N MB, or by default a mix
of the prompts in data/gad, llama.cpp's test inputs in
pkg/tokenizer/testdata and 256 KB of random mixed-script text (fixed seed),
repeated; run it from the repository root.`, stdout, stderr)
	tokPath := cl.String("tokenizer", defaultTokenizer, "Hugging Face tokenizer.json")
	mb := cl.Float64("mb", 8, "megabytes of text to encode per pass")
	passes := cl.Int("passes", 3, "number of passes")
	textPath := cl.String("text", "", "text file to encode (default: the mix above)")
	pos, done, code := cl.parse(args)
	if done {
		return code
	}
	if len(pos) > 0 || !(*mb > 0 && *mb <= 4096) || *passes < 1 || *passes > 1_000_000 {
		return cl.usageError("want --mb in (0, 4096] and --passes in [1, 1000000], got --mb %v --passes %d", *mb, *passes)
	}

	// The text, its tokens and the encoder's scratch: about 3 bytes each.
	if err := membound.Check(fmt.Sprintf("--mb %g", *mb), 3e6**mb); err != nil {
		return cl.fail(err)
	}
	t0 := time.Now()
	tok, err := loadTokenizer(*tokPath)
	if err != nil {
		return cl.fail(err)
	}
	loadMS := ms(time.Since(t0))
	var base, source string
	if *textPath != "" {
		data, err := readInput("--text", *textPath, 1<<30)
		if err != nil {
			return cl.fail(err)
		}
		if len(data) == 0 {
			return cl.fail(fmt.Errorf("%s is empty", *textPath))
		}
		base, source = string(data), *textPath
	} else {
		base, source = benchMix()
	}
	n := int(*mb * 1e6)
	text := strings.Repeat(base, n/len(base)+1)[:n]

	fmt.Fprintf(stdout, "tokenizer %s: %d tokens, loaded in %.0f ms\n", *tokPath, tok.VocabSize(), loadMS)
	fmt.Fprintf(stdout, "text      %.2f MB: %s\n", float64(n)/1e6, source)
	var rates []float64
	var ids []int
	for p := range *passes {
		t0 := time.Now()
		ids = tok.AppendEncode(ids[:0], text, tokenizer.EncodeOptions{})
		d := time.Since(t0)
		rate := float64(n) / 1e6 / d.Seconds()
		rates = append(rates, rate)
		note := ""
		if p == 0 {
			note = " (cold cache)"
		}
		fmt.Fprintf(stdout, "pass %d    %.1f MB/s, %.0f ms, %d tokens, %.2f bytes/token%s\n",
			p+1, rate, ms(d), len(ids), float64(n)/float64(max(len(ids), 1)), note)
	}
	fmt.Fprintf(stdout, "best      %.1f MB/s\n", slices.Max(rates))
	return 0
}

// benchMix returns the default text of "gasp bench tokenize" and says what
// it is made of.
func benchMix() (text, source string) {
	var b strings.Builder
	var parts []string
	nPrompts := 0
	filepath.WalkDir(filepath.Join("data", "gad"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "prompt.txt" {
			if data, err := infile.Read(path, maxPromptBytes); err == nil {
				b.Write(data)
				nPrompts++
			}
		}
		return nil
	})
	if nPrompts > 0 {
		parts = append(parts, fmt.Sprintf("%d prompts of data/gad", nPrompts))
	}
	if data, err := infile.Read(filepath.Join("pkg", "tokenizer", "testdata", "llama-bpe.inp"), 64<<20); err == nil {
		b.Write(data)
		parts = append(parts, "llama.cpp's test inputs")
	} else if !errors.Is(err, fs.ErrNotExist) {
		parts = append(parts, fmt.Sprintf("(llama.cpp's test inputs: %v)", err))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for end := b.Len() + 256<<10; b.Len() < end; {
		b.WriteString(randomMixed(r))
	}
	parts = append(parts, "256 KB of random mixed-script text")
	return b.String(), strings.Join(parts, ", ") + ", repeated"
}

// Material of randomMixed.
var (
	mixWords = strings.Fields("the of and to in is that for it with as was on be by this are from at or an " +
		"Hello World tokenizer grammar sample SyGuS (define-fun f ((x (_ BitVec 4))) (bvadd x #x1)) " +
		"λόγος привет Москва مرحبا שלום नमस्ते สวัสดี 你好 世界 こんにちは 한국어 Führer Cửa naïve")
	mixSpaces = []string{" ", "  ", "\n", "\n\n", "\t", "\r\n", "    ", "\u00a0", "\u3000"}
	mixOther  = []string{"12", "2024", "3.14159", "'s", "'LL", "!", "?!", "...", "—", "()", "=>", "🦙", "👍🏽",
		"👨\u200d👩\u200d👧", "<|eot_id|>", "e\u0301", "½", "#{}", "\"quoted\""}
)

// randomMixed returns a random run of words, spaces, numbers, punctuation
// and emoji.
func randomMixed(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(16) {
		switch r.IntN(6) {
		case 0, 1, 2:
			b.WriteString(mixWords[r.IntN(len(mixWords))])
		case 3:
			b.WriteString(mixOther[r.IntN(len(mixOther))])
		default:
			for k := 1 + r.IntN(6); k > 0; k-- {
				b.WriteByte(byte('a' + r.IntN(26)))
			}
		}
		b.WriteString(mixSpaces[r.IntN(len(mixSpaces))])
	}
	return b.String()
}
