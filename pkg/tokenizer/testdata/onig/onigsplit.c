#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <oniguruma.h>
/* onigsplit: splits strings with Oniguruma, the regex engine of Hugging Face
   tokenizers (its onig crate bundles Oniguruma 6.9.8), and the Llama-3
   pre-tokenizer pattern or the pattern given as its argument, compiled as
   the onig crate's Regex::new does (Ruby syntax, no options).

   Reads NUL-terminated strings from stdin; for each prints its matches as
   BEGIN:END byte offsets, space separated, one line per string.
   Build: cc -O2 -o onigsplit onigsplit.c -lonig (Debian: libonig-dev).
   Usage: onigsplit [PATTERN] < strings */
int main(int argc, char **argv) {
  const char *pat = argc > 1 ? argv[1] : "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  OnigEncoding use[] = { ONIG_ENCODING_UTF8 };
  onig_initialize(use, 1);
  regex_t *reg; OnigErrorInfo einfo;
  int r = onig_new(&reg, (const UChar*)pat, (const UChar*)pat + strlen(pat), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_RUBY, &einfo);
  if (r != ONIG_NORMAL) { fprintf(stderr, "onig_new failed %d\n", r); return 1; }
  OnigRegion *region = onig_region_new();
  size_t cap = 1 << 20, n = 0; char *buf = malloc(cap); int c;
  for (;;) {
    c = getchar();
    if (c == EOF) break;
    if (c != 0) { if (n + 1 >= cap) { cap *= 2; buf = realloc(buf, cap); } buf[n++] = (char)c; continue; }
    const UChar *s = (const UChar*)buf, *end = s + n, *start = s;
    int first = 1;
    while (start < end) {
      int at = onig_search(reg, s, end, start, end, region, ONIG_OPTION_NONE);
      if (at < 0) break;
      printf(first ? "%d:%d" : " %d:%d", region->beg[0], region->end[0]);
      first = 0;
      start = s + (region->end[0] > region->beg[0] ? region->end[0] : region->end[0] + 1);
    }
    printf("\n");
    n = 0;
  }
  return 0;
}
