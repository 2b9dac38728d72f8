package lark

// commonSource defines the terminals of Lark's common module
// (lark/grammars/common.lark), written here in Lark syntax. Two differ in
// form from Lark's: ESCAPED_STRING and C_COMMENT use a lazy .*? with a
// lookbehind there, which this package cannot compile; since Lark's lexer
// takes the shortest match of a lazy pattern, the languages below are the
// tokens Lark actually produces: a string ends at the first quote that is
// not escaped, a comment at the first "*/".
const commonSource = `
DIGIT: "0".."9"
HEXDIGIT: DIGIT | "a".."f" | "A".."F"
INT: DIGIT+
SIGNED_INT: ("+" | "-")? INT
DECIMAL: INT "." INT? | "." INT
_EXP: ("e" | "E") SIGNED_INT
FLOAT: INT _EXP | DECIMAL _EXP?
SIGNED_FLOAT: ("+" | "-")? FLOAT
NUMBER: FLOAT | INT
SIGNED_NUMBER: ("+" | "-")? NUMBER

ESCAPED_STRING: "\"" (/[^"\\\n]/ | "\\" /./)* "\""

LCASE_LETTER: "a".."z"
UCASE_LETTER: "A".."Z"
LETTER: LCASE_LETTER | UCASE_LETTER
WORD: LETTER+
CNAME: ("_" | LETTER) ("_" | LETTER | DIGIT)*

WS_INLINE: (" " | "\t")+
WS: /[ \t\f\r\n]+/
CR: "\r"
LF: "\n"
NEWLINE: (CR? LF)+

SH_COMMENT: "#" /[^\n]/*
CPP_COMMENT: "//" /[^\n]/*
C_COMMENT: "/*" (/[^*]/ | "*"+ /[^*\/]/)* "*"+ "/"
SQL_COMMENT: "--" /[^\n]/*
`

// commonNames lists the names %import common.NAME accepts, for errors.
const commonNames = "DIGIT, HEXDIGIT, INT, SIGNED_INT, DECIMAL, FLOAT, SIGNED_FLOAT, NUMBER, SIGNED_NUMBER, " +
	"ESCAPED_STRING, LCASE_LETTER, UCASE_LETTER, LETTER, WORD, CNAME, WS_INLINE, WS, CR, LF, NEWLINE, " +
	"SH_COMMENT, CPP_COMMENT, C_COMMENT, SQL_COMMENT"
