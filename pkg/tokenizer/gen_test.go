package tokenizer

import (
	"math/rand/v2"
	"strings"
)

// genOptions choose what randomString may produce.
type genOptions struct {
	// jsDiffers adds the characters on which the npm reference
	// (transformers.js, JavaScript regexes) knowingly differs from Hugging
	// Face tokenizers (Oniguruma): U+0085 NEL (\s in Oniguruma, not in
	// JavaScript), U+FEFF (the reverse) and "'ſ" (a contraction under
	// Unicode case folding; transformers.js rewrites (?i:'s) as '[sS]).
	jsDiffers bool
	// special is the special-token text to mix in, genSpecial (Llama 3's)
	// when nil.
	special []string
	// soup adds random bytes decoded as UTF-8 with each invalid sequence
	// replaced by U+FFFD.
	soup bool
}

// Pieces of random strings. Every character here was assigned in Unicode
// 6.0 or earlier and has kept its general category since, so that the
// Unicode versions of Go, Node.js and Oniguruma agree on it.
var (
	genSpaces   = []rune(" \t\n\r\u00a0\u3000\u2003\v\f\u2028\u2029\u1680\u202f\u205f\u2009\u200a")
	genPunct    = []rune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~“”‘’—–…«»¿¡・、。，；：！？¤§¶†‡•‰′″‹›€£¥©®°±×÷")
	genControls = []rune("\x00\x01\x07\x08\x0e\x1b\x1c\x1d\x1e\x1f\x7f\u200b\u200c\u200d\u2060\u00ad")
	genDigits   = []rune("0123456789٠١٢٣٤٥٦٧٨٩०१२३४५६७८९０１２３４５６７８９²³¹½¼¾ⅫⅣ①②⑳")
	genCombin   = []rune("\u0300\u0301\u0302\u0303\u0308\u0323\u0327\u0331\u20e3\ufe0f\u093e\u093f\u0940\u0947\u094d\u0e31\u0e34\u0e48\u302a")
	genWords    = []string{
		"the", "Hello", "world", "WORLD", "tokenizer", "λόγος", "Αθήνα", "привет", "Москва", "Български",
		"مرحبا", "السلام", "שלום", "नमस्ते", "हिन्दी", "สวัสดี", "ภาษาไทย", "你好", "世界", "我想在apple工作",
		"こんにちは", "カタカナ", "한국어", "안녕하세요", "Führer", "Cửa", "Việt", "naïve", "façade", "Ærøskøbing",
		"ქართული", "Հայերեն", "ἀρχή", "ﬁne", "ǅemal", "İstanbul", "ß", "ÀÉÎÕÜ", "x", "I",
	}
	genEmoji = []string{
		"😀", "🦙", "🚀", "😁", "👍", "👍🏽", "👨\u200d👩\u200d👧\u200d👦", "🏳️\u200d🌈", "😶\u200d🌫️", "🇺🇸", "🇯🇵",
		"❤️", "1️⃣", "#️⃣", "✨", "🤖", "🧑🏿\u200d💻", "☕", "⚠️", "🫠",
	}
	genSpecial = []string{
		"<|eot_id|>", "<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
		"<|reserved_special_token_17|>", "<|eom_id|>", "<|python_tag|>", "<|eot_id", "<|", "|>", "<|eot_id|",
		"<|reserved_special_token_250|>",
	}
	genContractions = []string{"s", "t", "re", "ve", "m", "ll", "d", "x", "S", "LL", "Re", "vE", "D", "M", "T"}
	// genRanges are blocks all of whose characters in the range are old and
	// stable: Latin-1, Latin Extended-A (less ſ), Greek, Cyrillic, Hebrew,
	// Arabic letters, Devanagari letters, Thai, CJK, Hangul, kana.
	genRanges = [][2]rune{
		{0xa1, 0xff}, {0x100, 0x17e}, {0x391, 0x3a1}, {0x3a3, 0x3c9}, {0x400, 0x486}, {0x48a, 0x4ff},
		{0x5d0, 0x5ea}, {0x621, 0x63a}, {0x641, 0x64a}, {0x905, 0x939}, {0xe01, 0xe3a}, {0x4e00, 0x9fa5},
		{0xac00, 0xd7a3}, {0x3041, 0x3096}, {0x30a1, 0x30fa},
	}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// randomString returns a random string of mixed scripts, white space runs,
// digits, contractions, emoji, punctuation and special-token text.
func randomString(r *rand.Rand, opts genOptions) string {
	var b strings.Builder
	n := 1 + r.IntN(12)
	for range n {
		k := r.IntN(17)
		if opts.soup && r.IntN(12) == 0 {
			k = 17
		}
		switch k {
		case 0, 1: // ASCII word, any case, often after a space
			if r.IntN(2) == 0 {
				b.WriteByte(' ')
			}
			for k := 1 + r.IntN(9); k > 0; k-- {
				c := byte('a' + r.IntN(26))
				if r.IntN(4) == 0 {
					c -= 'a' - 'A'
				}
				b.WriteByte(c)
			}
		case 2: // contraction
			b.WriteString("'" + pick(r, genContractions))
			if r.IntN(2) == 0 {
				b.WriteString(pick(r, genWords))
			}
		case 3: // digits of various lengths
			if r.IntN(3) == 0 {
				b.WriteByte(' ')
			}
			for k := 1 + r.IntN(12); k > 0; k-- {
				if r.IntN(3) == 0 {
					b.WriteRune(pick(r, genDigits))
				} else {
					b.WriteByte(byte('0' + r.IntN(10)))
				}
			}
		case 4, 5: // white space run
			for k := 1 + r.IntN(6); k > 0; k-- {
				b.WriteRune(pick(r, genSpaces))
			}
		case 6, 7: // a word of some script
			if r.IntN(2) == 0 {
				b.WriteRune(pick(r, genSpaces))
			}
			b.WriteString(pick(r, genWords))
		case 8: // combining marks
			b.WriteString(pick(r, genWords))
			for k := 1 + r.IntN(3); k > 0; k-- {
				b.WriteRune(pick(r, genCombin))
			}
		case 9: // emoji
			if r.IntN(2) == 0 {
				b.WriteByte(' ')
			}
			for k := 1 + r.IntN(3); k > 0; k-- {
				b.WriteString(pick(r, genEmoji))
			}
		case 10: // punctuation run
			if r.IntN(2) == 0 {
				b.WriteByte(' ')
			}
			for k := 1 + r.IntN(6); k > 0; k-- {
				b.WriteRune(pick(r, genPunct))
			}
			if r.IntN(3) == 0 {
				b.WriteString(pick(r, []string{"\n", "\r\n", "\n\n", "\r"}))
			}
		case 11: // special-token text
			if opts.special != nil {
				b.WriteString(pick(r, opts.special))
			} else {
				b.WriteString(pick(r, genSpecial))
			}
		case 12: // control and format characters
			b.WriteRune(pick(r, genControls))
		case 13: // random characters from stable blocks
			for k := 1 + r.IntN(6); k > 0; k-- {
				g := pick(r, genRanges)
				b.WriteRune(g[0] + rune(r.IntN(int(g[1]-g[0]+1))))
			}
		case 14: // line structure: indentation and line breaks
			b.WriteString(pick(r, []string{"\n", "\r\n", "\n\n\n", "\n    ", "\t\t", "  \n  ", " \r\n\t", "\n \n"}))
		case 15: // a long run of one character
			c := pick(r, []string{" ", "\n", "-", "=", "a", "7", "é", "🦙", "\t", "'"})
			b.WriteString(strings.Repeat(c, 2+r.IntN(40)))
		case 16:
			if opts.jsDiffers {
				b.WriteString(pick(r, []string{"\u0085", "\ufeff", "'ſ", "'ſt", " \u0085 ", "x\ufeff\ufeffy", "\u0085\n"}))
			} else {
				b.WriteString(pick(r, []string{"'", "''", "' ", "'s'", "\"'"}))
			}
		case 17: // byte soup, decoded lossy
			soup := make([]byte, 1+r.IntN(16))
			for i := range soup {
				soup[i] = byte(r.IntN(256))
			}
			t := strings.ToValidUTF8(string(soup), "\uFFFD")
			if !opts.jsDiffers {
				t = strings.NewReplacer("\u0085", "", "\ufeff", "").Replace(t)
			}
			b.WriteString(t)
		}
	}
	return b.String()
}
