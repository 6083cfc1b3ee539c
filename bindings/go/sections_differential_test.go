package loopcompact_test

// Differential test of SummarySections and SummarySectionText (SPEC C13.7, C13.8) against Go's
// own encoding/xml: for every valid summary of the vector file and for random valid summaries
// with references, line ends, self-closing sections and blank text between the sections, each
// section's text must be the chardata encoding/xml delivers, and its span the bytes between the
// decoder's offsets after the start tag and before the end tag.
// `go test -fuzz=FuzzSectionsDifferential` explores further.

import (
	"bytes"
	"encoding/xml"
	"io"
	"math/rand"
	"path/filepath"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// goSections reads a summary with encoding/xml (Strict, RawToken, no entity map: the decoder of
// the reference) and returns each section's chardata and raw-content span.
func goSections(t testing.TB, doc []byte) (texts [5]string, spans [5]lc.Span) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	depth, k, contentStart := 0, -1, 0
	var text []byte
	for {
		start := int(d.InputOffset())
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("encoding/xml rejects a summary the library accepts: %v\n%q", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 {
				k++
				if k > 4 || tok.Name.Local != lc.Sections[k].String() {
					t.Fatalf("unexpected element %v in %q", tok.Name, doc)
				}
				contentStart, text = int(d.InputOffset()), nil
			}
		case xml.EndElement:
			if depth == 2 {
				texts[k], spans[k] = string(text), lc.Span{Offset: contentStart, Len: start - contentStart}
			}
			depth--
		case xml.CharData:
			if depth == 2 {
				text = append(text, tok...)
			}
		}
	}
	if k != 4 {
		t.Fatalf("encoding/xml saw %d sections in %q", k+1, doc)
	}
	return texts, spans
}

// compareSections checks one valid summary; it reports whether the library accepted doc.
func compareSections(t testing.TB, doc []byte) bool {
	t.Helper()
	spans, err := lc.SummarySections(doc)
	if err != nil {
		return false
	}
	texts, goSpans := goSections(t, doc)
	if spans != goSpans {
		t.Fatalf("spans %v, encoding/xml %v, in %q", spans, goSpans, doc)
	}
	for i, s := range lc.Sections {
		got, err := lc.SummarySectionText(doc, s)
		if err != nil || got != texts[i] {
			t.Fatalf("%s: %q (%v), encoding/xml delivers %q, in %q", s, got, err, texts[i], doc)
		}
	}
	return true
}

var (
	sectionTextParts = []string{"ship", "the parser", "v1.2", "日本語", "🚀", "résumé", " ", "  ", "\n", "\r\n", "\r",
		"\t", "&amp;", "&lt;", "&gt;", "&apos;", "&quot;", "&#65;", "&#x41;", "&#x0000041;", "&#13;", "&#xD;",
		"&#10;", "&#x9;", "&#x263A;", "&#128512;", "&#x10FFFF;", "&#xFFFD;", "]]&gt;", "]&#93;>", ">", "'", `"`,
		"a]b", "\u00a0", "\u2028", "\u0085", "\x7f", "\ufffd", "\u200b", "&#x85;", "&#xA0;", "\r\r\n\n"}
	sectionWords = []string{"goal", "state", "ok", "done", "tests pass"}
	interBlank   = []string{"", "", "\n", "  ", "\r\n", "\t", "\n  ", "\r"}
)

// generateSections builds a valid summary from e's bytes.
func generateSections(data []byte) []byte {
	e := &entropy{b: data}
	out := []byte("<conversation_summary")
	if e.byte()%4 == 0 {
		out = append(out, " \n"...)
	}
	out = append(out, '>')
	for k, s := range lc.Sections {
		out = append(out, e.choose(interBlank)...)
		name := s.String()
		mayBeEmpty := k != 0 && k != 3 // goal and state must not be blank (X4.20)
		if mayBeEmpty && e.byte()%4 == 0 {
			out = append(out, e.choose([]string{"<" + name + "/>", "<" + name + " />", "<" + name + "\n/>", "<" + name + "></" + name + ">"})...)
			continue
		}
		out = append(out, e.choose([]string{"<" + name + ">", "<" + name + " >", "<" + name + "\t>"})...)
		n := int(e.byte() % 8)
		for i := 0; i < n; i++ {
			out = append(out, e.choose(sectionTextParts)...)
		}
		if !mayBeEmpty {
			out = append(out, e.choose(sectionWords)...)
		}
		for i := int(e.byte() % 3); i > 0; i-- {
			out = append(out, e.choose(sectionTextParts)...)
		}
		out = append(out, e.choose([]string{"</" + name + ">", "</" + name + " >"})...)
	}
	out = append(out, e.choose(interBlank)...)
	return append(out, "</conversation_summary>"...)
}

func TestSectionsDifferential(t *testing.T) {
	valid := 0
	for _, r := range loadRows(t, filepath.Join(vectorDir, "summary_xml.jsonl")) {
		if r.str("expect") == "ok" && compareSections(t, r.doc(t, "xml")) {
			valid++
		}
	}
	if valid < 10 {
		t.Errorf("only %d valid vector rows compared", valid)
	}
	rng := rand.New(rand.NewSource(3))
	entropy := make([]byte, 128)
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		rng.Read(entropy)
		doc := generateSections(entropy)
		if !compareSections(t, doc) {
			t.Fatalf("generated summary rejected: %v\n%q", lc.ValidateSummaryXML(doc), doc)
		}
	}
	t.Logf("%d vector rows and %d generated summaries", valid, n)
}

func FuzzSectionsDifferential(f *testing.F) {
	rng := rand.New(rand.NewSource(4))
	for i := 0; i < 16; i++ {
		entropy := make([]byte, 32+i*16)
		rng.Read(entropy)
		f.Add(entropy)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !compareSections(t, generateSections(data)) {
			t.Fatalf("generated summary rejected: %q", generateSections(data))
		}
		compareSections(t, data) // raw bytes: compared when the library accepts them
	})
}
