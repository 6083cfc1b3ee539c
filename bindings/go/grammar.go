package loopcompact

// Grammars and structured output (SPEC §17.1, §17.2): the summary language as a regular
// expression, a Lark grammar and a GBNF grammar for constrained decoding, the JSON Schema of its
// five-string form, and the renderer that turns such an object into the summary.

/*
#include "loopcompact.h"
*/
import "C"

import "fmt"

// GrammarKind is the language of SummaryGrammar's text (LC_GRAMMAR_*).
type GrammarKind int32

// Grammar kinds, taken from the #defines of include/loopcompact.h.
const (
	// GrammarRegex is one regular expression, matched against the whole reply (SPEC G17.4). It is
	// written in the escape syntax of Python's re, Rust's regex and llguidance (\xHH, \uHHHH,
	// \UHHHHHHHH); Go's regexp reads the same expression once \uHHHH and \UHHHHHHHH are written
	// \x{…}.
	GrammarRegex GrammarKind = C.LC_GRAMMAR_REGEX
	// GrammarLark is a Lark grammar, start rule `start` (SPEC G17.5): OpenAI custom tools,
	// llguidance, vLLM.
	GrammarLark GrammarKind = C.LC_GRAMMAR_LARK
	// GrammarGBNF is a GBNF grammar for llama.cpp, start rule `root` (SPEC G17.6).
	GrammarGBNF GrammarKind = C.LC_GRAMMAR_GBNF
)

// String is "regex", "lark" or "gbnf"; another value is written as a number.
func (k GrammarKind) String() string {
	switch k {
	case GrammarRegex:
		return "regex"
	case GrammarLark:
		return "lark"
	case GrammarGBNF:
		return "gbnf"
	}
	return fmt.Sprintf("GrammarKind(%d)", int32(k))
}

// SummaryGrammar is the summary language as a grammar of kind k for constrained decoding (SPEC
// G17.1, lc_summary_grammar): every string it matches passes ValidateSummaryXML. "" for a kind
// other than GrammarRegex, GrammarLark and GrammarGBNF.
func SummaryGrammar(k GrammarKind) string {
	p := C.lc_summary_grammar(C.int32_t(k))
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// SummaryJSONSchema is the JSON Schema of the summary's structured-output form (SPEC G17.7,
// lc_summary_json_schema): an object of five required strings goal, constraints, decisions,
// state and open_items, with no other property. RenderSummary turns a filled object into the
// summary.
func SummaryJSONSchema() string { return C.GoString(C.lc_summary_json_schema()) }

// SectionTexts holds the text of each of the five sections: what RenderSummary takes, and what
// a model fills under SummaryJSONSchema (decode its JSON into this struct: the tags name the
// schema's properties). (Sections is the order of the Section constants.)
type SectionTexts struct {
	Goal        string `json:"goal"`
	Constraints string `json:"constraints"`
	Decisions   string `json:"decisions"`
	State       string `json:"state"`
	OpenItems   string `json:"open_items"`
}

// RenderSummary builds the summary XML from the five sections' texts (SPEC G17.8,
// lc_summary_render): &, <, > and CR escaped, an empty optional section self-closed. The result
// passes ValidateSummaryXML, and SummarySectionText gives each text back.
//
// The *Error (G17.9) is the first refusal in section order: StatusSummaryXMLSyntax for a text
// that is not UTF-8 or holds a character XML cannot carry (U+0000, U+FFFE, …),
// StatusSummaryXMLContent for a blank Goal or State. Nothing is replaced. The C function returns
// the status alone, so the error has no section or offset.
func RenderSummary(s SectionTexts) (string, error) {
	gp, gn := stringArg(s.Goal)
	cp, cn := stringArg(s.Constraints)
	dp, dn := stringArg(s.Decisions)
	sp, sn := stringArg(s.State)
	op, on := stringArg(s.OpenItems)
	// The escapes lengthen the text; one guess, then the size the library asks for.
	buf := make([]byte, 160+(len(s.Goal)+len(s.Constraints)+len(s.Decisions)+len(s.State)+len(s.OpenItems))*9/8)
	var out C.size_t
	for try := 0; ; try++ {
		bp, bc := bytesArg(buf)
		rc := C.lc_summary_render(gp, gn, cp, cn, dp, dn, sp, sn, op, on, bp, bc, &out)
		switch {
		case rc == C.LC_OK:
			return string(buf[:int(out)]), nil
		case rc == C.LC_ERR_BUFFER_TOO_SMALL && try < 2:
			buf = make([]byte, int(out))
		default:
			return "", check(rc)
		}
	}
}
