package loopcompact_test

// Differential testing of the summary grammar (SPEC §4): the pure-Go oracle (internal/oracle, on
// encoding/xml) against the library through cgo, on the vector rows, on generated summaries and,
// with `go test -fuzz=FuzzSummaryDifferential`, on inputs the fuzzer mutates. The oracle implements
// the SPEC, divergence D5 included, so the two must agree on every input; ValidateReference (the
// oracle without D5) must give the reference outcome on the rows that record one (SPEC §11).
//
// Each fuzz input is checked twice: as raw bytes, and as the entropy that drives a generator of
// structured summaries (valid ones with faults injected), so that the fuzzer also explores deep
// into well-formed documents.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"
	"unicode/utf8"

	lc "github.com/loopcompact/loopcompact/bindings/go"
	"github.com/loopcompact/loopcompact/bindings/go/internal/oracle"
)

func libraryResult(t testing.TB, doc []byte) oracle.Result {
	t.Helper()
	return resultOf(t, lc.ValidateSummaryXML(doc))
}

func resultOf(t testing.TB, err error) oracle.Result {
	t.Helper()
	switch {
	case err == nil:
		return oracle.OK
	case errors.Is(err, lc.StatusSummaryXMLSyntax):
		return oracle.Syntax
	case errors.Is(err, lc.StatusSummaryXMLRoot):
		return oracle.Root
	case errors.Is(err, lc.StatusSummaryXMLStructure):
		return oracle.Structure
	case errors.Is(err, lc.StatusSummaryXMLContent):
		return oracle.Content
	}
	t.Fatalf("unexpected status from the library: %v", err)
	return 0
}

func TestOracleVectors(t *testing.T) {
	for _, r := range loadRows(t, filepath.Join(vectorDir, "summary_xml.jsonl")) {
		doc := r.doc(t, "xml")
		if got := oracle.Validate(doc).Reason(); got != r.str("expect") {
			t.Errorf("%s: oracle gives %s, want %s", r.name(), got, r.str("expect"))
		}
		want := r.str("expect")
		if ref := r.str("expect_reference"); ref != "" {
			want = ref
		}
		if got := oracle.ValidateReference(doc).Reason(); got != want {
			t.Errorf("%s: reference mode gives %s, want %s", r.name(), got, want)
		}
	}
}

// outputInput is the compaction input that summaries are wrapped for when the differential test
// also goes through lc_compaction_output_validate (O6.2 step 9).
const outputWire = `{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},` +
	`"model":{"provider":"provider","model":"model"},` +
	`"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",` +
	`"transcript":[{"role":"user","blocks":[{"type":"text","text":"hello"}]}],"max_summary_tokens":32}`

func wrapOutput(summary []byte) []byte {
	s, _ := json.Marshal(string(summary))
	return []byte(`{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},` +
		`"model":{"provider":"provider","model":"model"},` +
		`"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",` +
		`"summary":` + string(s) + `}`)
}

// compare checks one document: oracle vs lc_summary_xml_validate, and, for valid UTF-8 (a JSON
// string cannot carry anything else), vs lc_compaction_output_validate on a reply holding it.
func compare(t testing.TB, in *lc.Input, doc []byte) {
	t.Helper()
	want := oracle.Validate(doc)
	if got := libraryResult(t, doc); got != want {
		t.Fatalf("disagreement on %q: library %s, oracle %s", doc, got, want)
	}
	if in == nil || !utf8.Valid(doc) {
		return
	}
	summary, err := in.ValidateOutput(wrapOutput(doc), 1, 1<<30)
	if got := resultOf(t, err); got != want {
		t.Fatalf("output path disagrees on %q: library %s, oracle %s", doc, got, want)
	}
	if err == nil && string(summary) != string(doc) {
		t.Fatalf("output path returned %q for %q", summary, doc)
	}
}

func TestDifferentialGenerated(t *testing.T) {
	in, err := lc.ParseInput([]byte(outputWire))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	rng := rand.New(rand.NewSource(1))
	counts := map[oracle.Result]int{}
	entropy := make([]byte, 256)
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		rng.Read(entropy)
		doc := generate(entropy)
		counts[oracle.Validate(doc)]++
		compare(t, in, doc)
	}
	// The generator must reach every outcome, or it is not testing much.
	for r := oracle.OK; r <= oracle.Content; r++ {
		if counts[r] == 0 {
			t.Errorf("no generated document gave %s (counts %v)", r, counts)
		}
	}
	t.Logf("outcomes of %d generated documents: %v", n, counts)
}

func FuzzSummaryDifferential(f *testing.F) {
	for _, r := range loadRows(f, filepath.Join(vectorDir, "summary_xml.jsonl")) {
		f.Add(r.doc(f, "xml"))
	}
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 32; i++ {
		entropy := make([]byte, 64+i*8)
		rng.Read(entropy)
		f.Add(entropy)                // as generator entropy
		f.Add(generateValid(entropy)) // as a document
	}
	in, err := lc.ParseInput([]byte(outputWire))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compare(t, in, data)
		compare(t, in, generate(data))
	})
}

// ---- generator ----

// entropy hands out the fuzz bytes; exhausted, it gives zeros (the "plain" choice everywhere).
type entropy struct{ b []byte }

func (e *entropy) byte() byte {
	if len(e.b) == 0 {
		return 0
	}
	c := e.b[0]
	e.b = e.b[1:]
	return c
}

// rare returns 0 (the plain choice) most of the time, and i in 1..n-1 with probability about
// odds/256 in total. Exhausted entropy (zeros) and ASCII text give the plain choice.
func (e *entropy) rare(odds byte, n int) int {
	if e.byte() < 255-odds {
		return 0
	}
	return 1 + int(e.byte())%(n-1)
}

func (e *entropy) choose(list []string) string { return list[int(e.byte())%len(list)] }

var (
	words = []string{"ship", "the", "parser", "tests pass", "deploy", "v1.2", "élan", "日本語", "🚀",
		"résumé", "a", "ok"}
	textOdd = []string{"&lt;", "&gt;", "&amp;", "&apos;", "&quot;", "&#65;", "&#x41;", "&#x00041;",
		"&#xA0;", "&#x20;", "&#x2028;", "&#x10FFFF;", "&#xFFFD;", "&#x85;", "&#x7F;",
		"&#xD800;", "&#xDFFF;", "&#55296;", "&#0;", "&#x1;", "&#xFFFE;", "&#xFFFF;", "&#x110000;",
		"&#99999999999999999999;", "&#X41;", "&#x;", "&#;", "&#-1;", "&#x41", "&nbsp;", "&LT;", "&",
		"&lt", "& ", "]]>", "]]&gt;", "]&#93;>", "]]", ">", "'", "\"", "\r\n", "\r", "\t", "\n",
		"\u00a0", "\u2028", "\u200b", "\ufeff", "\u180e", "\x1c", "\x00", "\x01", "\x0b", "\x7f",
		"\u0085", "\ufffd", "\uffff", "\xff", "\xc0\x80", "\xed\xa0\x80", "\xe2\x82", "\xf4\x90\x80\x80",
		"<", "<!-- note -->", "<!---->", "<!-- a -- b -->", "<!--->", "<?pi x?>", "<?xml version=\"1.0\"?>",
		"<![CDATA[x]]>", "<![cdata[x]]>", "<!DOCTYPE x>", "<!x>", "<b>", "</b>", "<b/>", "<br />",
		"</goal>", "<goal>", "\u3000", "\u1680", "\u205f", "\u202f",
	}
	// White_Space (X4.21) in every form, and characters that only look blank.
	blanks = []string{"", " ", "\n", "\r\n", "\r", "\t", "  \n  ", "\u00a0", "\u0085", "\u1680", "\u2000",
		"\u2003", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "&#x20;", "&#xA0;", "&#10;",
		"&#13;", "&#x85;", "&#x3000;", "&#x2029;", "&#x9;"}
	nearBlanks = []string{"\u200b", "\ufeff", "\u180e", "\x1c", "\x1f", "&#x200B;", "&#xFEFF;", "&#x1C;",
		"\u2060", "\u00ad", "\x0b", "\x0c", "&#xB;"}
	badNames = []string{"Goal", "x:goal", ":goal", "goal:", "a:b:c", "goal ", "1goal", "go·al", "g\u0300oal",
		"\u00e9", "_", ":", "goal.x", "goal-x", "GOAL", "g\xffoal", "ǅ", "a\u0e3a", "a\u3005", "x\u0387"}
	attrs = []string{` a="1"`, ` a='x]]>y'`, ` xmlns="urn:x"`, ` xmlns:p="u"`, ` a="&#xD800;"`, ` a="&#x41;"`,
		` a=b`, ` a`, ` a="<"`, ` a="1"b="2"`, ` a = "1" `, ` a="&#x1;"`, ` a="]]&gt;"`, ` a="\xff"`,
		` a="&nbsp;"`, ` a:b:c="1"`, ` a="1" a="2"`, ` a="]]>]]>"`, ` a='"'`, "\ta=\"\n\"",
	}
	prologs = []string{"\ufeff", "\n", " ", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
		"<?xml version=\"1.1\"?>", "<?xml version='1.0' encoding='latin1'?>", "<?xml version=version=\"1.0\" version=\"2\"?>",
		"<?xml encoding=\"Utf-8\"?>", "<!-- lead -->", "<!DOCTYPE conversation_summary [<!ENTITY x \"y\">]>",
		"<?php ?>", "<?>", "<??>", "text", "\x00", "<!DOCTYPE a '>' <!-- > --> >", "<!>", "<!",
		"<?xml version=\"1.0\"", "<?XML version=\"9\"?>", "<?xml-stylesheet version=\"2\"?>",
	}
)

// generate builds one summary from e's bytes: mostly the valid shape, with each part replaced by a
// faulty variant now and then, and a few raw byte edits at the end.
func generate(data []byte) []byte {
	e := &entropy{b: data}
	var out []byte
	if e.rare(24, 2) != 0 {
		out = append(out, e.choose(prologs)...)
	}
	root := "conversation_summary"
	switch e.rare(20, 5) {
	case 1:
		root = "summary"
	case 2:
		root = "p:conversation_summary"
	case 3:
		root = ":conversation_summary"
	case 4:
		root = "Conversation_Summary"
	}
	out = append(out, '<')
	out = append(out, root...)
	if e.rare(16, 2) != 0 {
		out = append(out, e.choose(attrs)...)
	}
	out = append(out, '>')
	for k := 0; k < 5; k++ {
		out = append(out, e.choose(blanks)...)
		name := sections[k]
		switch e.rare(24, 6) {
		case 1: // missing section
			continue
		case 2: // wrong name
			name = e.choose(badNames)
		case 3: // repeated or swapped with the next
			name = sections[int(e.byte())%5]
		case 4: // text in the root
			out = append(out, e.choose(words)...)
		case 5: // an extra element
			out = append(out, "<extra/>"...)
		}
		out = append(out, '<')
		out = append(out, name...)
		if e.rare(10, 2) != 0 {
			out = append(out, e.choose(attrs)...)
		}
		switch e.rare(30, 4) {
		case 1:
			out = append(out, "/>"...)
			continue
		case 2:
			out = append(out, " />"...)
			continue
		case 3:
			out = append(out, "\n>"...)
		default:
			out = append(out, '>')
		}
		out = appendText(e, out, k)
		out = append(out, "</"...)
		if e.rare(12, 3) == 0 {
			out = append(out, name...)
		} else {
			out = append(out, e.choose(badNames)...)
		}
		if e.rare(12, 2) != 0 {
			out = append(out, " \n"...)
		}
		out = append(out, '>')
	}
	out = append(out, e.choose(blanks)...)
	if e.rare(10, 2) == 0 {
		out = append(out, "</"+root+">"...)
	}
	if e.rare(16, 2) != 0 {
		out = append(out, e.choose(textOdd)...)
	}
	// Raw edits: delete, duplicate or overwrite a byte.
	for i := e.rare(24, 4); i > 0 && len(out) > 0; i-- {
		p := (int(e.byte())<<8 | int(e.byte())) % len(out)
		switch e.byte() % 3 {
		case 0:
			out = append(out[:p], out[p+1:]...)
		case 1:
			out = append(out[:p+1], out[p:]...)
		default:
			out[p] = e.byte()
		}
	}
	return out
}

var sections = []string{"goal", "constraints", "decisions", "state", "open_items"}

// appendText writes the text of section k: words, blanks and now and then an odd fragment; or,
// now and then, only blanks and near-blanks (X4.21 matters for goal and state).
func appendText(e *entropy, out []byte, k int) []byte {
	if e.rare(40, 2) != 0 {
		for i := int(e.byte() % 4); i >= 0; i-- {
			if e.rare(48, 2) != 0 {
				out = append(out, e.choose(nearBlanks)...)
			} else {
				out = append(out, e.choose(blanks)...)
			}
		}
		return out
	}
	n := int(e.byte() % 6)
	if (k == 0 || k == 3) && n == 0 && e.rare(64, 2) == 0 {
		n = 1 // goal and state are mostly non-blank
	}
	for i := 0; i < n; i++ {
		switch e.rare(32, 4) {
		case 1:
			out = append(out, e.choose(textOdd)...)
		case 2:
			out = append(out, e.choose(blanks)...)
		case 3:
			out = append(out, e.choose(nearBlanks)...)
		default:
			out = append(out, e.choose(words)...)
			out = append(out, ' ')
		}
	}
	return out
}

// generateValid builds a valid summary from e's bytes (no faults).
func generateValid(data []byte) []byte {
	e := &entropy{b: data}
	out := []byte("<conversation_summary>\n")
	for k, name := range sections {
		out = append(out, fmt.Sprintf("  <%s>", name)...)
		for i := 0; i < 1+int(e.byte()%4); i++ {
			out = append(out, e.choose(words)...)
			out = append(out, ' ')
		}
		if k == 1 {
			out = append(out, "&lt;b&gt; &amp; &#x263A;"...)
		}
		out = append(out, fmt.Sprintf("</%s>\n", name)...)
	}
	return append(out, "</conversation_summary>"...)
}
