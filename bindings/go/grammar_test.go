package loopcompact_test

// SPEC §17.1-§17.2 from Go: the regex compiles with Go's regexp (RE2) and accepts exactly the
// rendered summaries inside the subset; rendered summaries validate and give their texts back;
// the renderer's refusals; the schema's shape.

import (
	"encoding/json"
	"errors"
	"math/rand"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// goRegex is the summary regex in RE2 syntax. RE2 has no \uHHHH or \UHHHHHHHH escape; \x{H…} is
// the same code point, and nothing else of the expression is rewritten.
func goRegex(t *testing.T) *regexp.Regexp {
	t.Helper()
	src := lc.SummaryGrammar(lc.GrammarRegex)
	src = regexp.MustCompile(`\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})`).ReplaceAllString(src, `\x{$1$2}`)
	re, err := regexp.Compile(`^(?:` + src + `)$`)
	if err != nil {
		t.Fatalf("Go's regexp refuses the summary regex: %v", err)
	}
	return re
}

func TestSummaryGrammarKinds(t *testing.T) {
	texts := map[string]bool{}
	for _, k := range []lc.GrammarKind{lc.GrammarRegex, lc.GrammarLark, lc.GrammarGBNF} {
		g := lc.SummaryGrammar(k)
		if g == "" || texts[g] {
			t.Fatalf("%s: empty or the same as another kind", k)
		}
		texts[g] = true
	}
	if !strings.HasPrefix(lc.SummaryGrammar(lc.GrammarLark), "//") || !strings.Contains(lc.SummaryGrammar(lc.GrammarLark), "\nstart:") {
		t.Error("the Lark grammar has no start rule")
	}
	if !strings.Contains(lc.SummaryGrammar(lc.GrammarGBNF), "root ::=") {
		t.Error("the GBNF grammar has no root rule")
	}
	for _, k := range []lc.GrammarKind{0, 4, -1} {
		if g := lc.SummaryGrammar(k); g != "" {
			t.Errorf("%s: %d bytes, want none", k, len(g))
		}
	}
	if lc.GrammarGBNF.String() != "gbnf" || lc.GrammarKind(9).String() != "GrammarKind(9)" {
		t.Error("GrammarKind.String")
	}
}

func TestSummaryJSONSchema(t *testing.T) {
	var schema struct {
		Type                 string                     `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal([]byte(lc.SummaryJSONSchema()), &schema); err != nil {
		t.Fatal(err)
	}
	want := []string{"constraints", "decisions", "goal", "open_items", "state"}
	var props []string
	for name, p := range schema.Properties {
		props = append(props, name)
		var prop struct{ Type string }
		if err := json.Unmarshal(p, &prop); err != nil || prop.Type != "string" {
			t.Errorf("%s: type %q, %v", name, prop.Type, err)
		}
	}
	slices.Sort(props)
	required := slices.Sorted(slices.Values(schema.Required))
	if schema.Type != "object" || !slices.Equal(props, want) || !slices.Equal(required, want) ||
		schema.AdditionalProperties == nil || *schema.AdditionalProperties {
		t.Fatalf("schema: %+v", schema)
	}
	// An object the model fills decodes into SectionTexts with no field left over.
	dec := json.NewDecoder(strings.NewReader(`{"goal":"g","constraints":"c","decisions":"","state":"s","open_items":"o"}`))
	dec.DisallowUnknownFields()
	var s lc.SectionTexts
	if err := dec.Decode(&s); err != nil || s != (lc.SectionTexts{Goal: "g", Constraints: "c", State: "s", OpenItems: "o"}) {
		t.Fatalf("%+v, %v", s, err)
	}
}

var renderAlphabet = []string{"a", "b", "X", "0", " ", "&", "<", ">", "\"", "'", ";", "#", "]", "\r", "\n", "\t",
	"\u00a0", "\u3000", "\u2028", "\u200b", "é", "中", "🚀", "\ufffd", "\U0010ffff"}

// DEL and C1 controls (U+0085 is also White_Space): Chars the renderer keeps raw, outside the
// grammars' subset (G17.3); one section in twenty gets one.
var renderControls = []string{"\u007f", "\u0080", "\u0085", "\u009f"}

// blank is X4.21's test: nothing but White_Space.
func blank(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.Is(unicode.White_Space, r) }) == ""
}

func TestRenderSummaryValidatesAndGivesTheTextsBack(t *testing.T) {
	re := goRegex(t)
	rng := rand.New(rand.NewSource(17))
	text := func() string {
		var b strings.Builder
		n := rng.Intn(25)
		control := -1
		if rng.Intn(20) == 0 {
			control = rng.Intn(n + 1)
		}
		for i := 0; i <= n; i++ {
			if i == control {
				b.WriteString(renderControls[rng.Intn(len(renderControls))])
			}
			if i < n {
				b.WriteString(renderAlphabet[rng.Intn(len(renderAlphabet))])
			}
		}
		return b.String()
	}
	c1 := regexp.MustCompile("[\u007f-\u009f]")
	rendered, inSubset, outside, refused := 0, 0, 0, 0
	for i := 0; i < 3000; i++ {
		s := lc.SectionTexts{Goal: text(), Constraints: text(), Decisions: text(), State: text(), OpenItems: text()}
		texts := []string{s.Goal, s.Constraints, s.Decisions, s.State, s.OpenItems}
		xml, err := lc.RenderSummary(s)
		if blank(s.Goal) || blank(s.State) {
			var e *lc.Error
			if !errors.As(err, &e) || e.Status != lc.StatusSummaryXMLContent {
				t.Fatalf("%q: %v, want LC_SUMMARY_XML_CONTENT", texts, err)
			}
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", texts, err)
		}
		if err := lc.ValidateSummaryXML([]byte(xml)); err != nil {
			t.Fatalf("%q: %v", xml, err)
		}
		for k, section := range lc.Sections {
			if got, err := lc.SummarySectionText([]byte(xml), section); err != nil || got != texts[k] {
				t.Fatalf("%s of %q: %q, %v; want %q", section, xml, got, err, texts[k])
			}
		}
		// Raw DEL and C1 controls stay raw and are outside the grammars' subset (G17.3, G17.8).
		control := slices.ContainsFunc(texts, c1.MatchString)
		if re.MatchString(xml) == control {
			t.Fatalf("%q: regex match %v, a DEL or C1 control %v", xml, !control, control)
		}
		rendered++
		if control {
			outside++
		} else {
			inSubset++
		}
	}
	if rendered < 1500 || inSubset < 1000 || outside < 100 || refused < 100 {
		t.Fatalf("%d rendered (%d inside the subset, %d outside), %d blank", rendered, inSubset, outside, refused)
	}
}

// TestRegexMatchesOnlyValidSummaries: near-misses of rendered summaries; every one the regex
// matches validates. The edits are made between characters: Go's regexp reads a byte that is not
// UTF-8 as U+FFFD, which the expression allows, so a host checks utf8.ValidString as well (the
// validator refuses such bytes, X4.1).
func TestRegexMatchesOnlyValidSummaries(t *testing.T) {
	re := goRegex(t)
	rng := rand.New(rand.NewSource(29))
	edits := []string{"&", "<", ">", "\x00", "]]>", "&#0;", "&amp", "\r", "\x7f", "</goal>", "&#xD800;", "&#65534;", ""}
	matched, total := 0, 0
	for i := 0; i < 300; i++ {
		xml, err := lc.RenderSummary(lc.SectionTexts{Goal: "g<&>" + strings.Repeat("é ", i%7), Constraints: strings.Repeat("x&", i%5),
			State: "s" + strings.Repeat("\n- ", i%3), OpenItems: strings.Repeat("🚀", i%4)})
		if err != nil {
			t.Fatal(err)
		}
		if !re.MatchString(xml) {
			t.Fatalf("%q is inside the subset", xml)
		}
		runes := []rune(xml)
		for j := 0; j < 20; j++ {
			at := rng.Intn(len(runes) + 1)
			edit := edits[rng.Intn(len(edits))]
			mutant := string(runes[:at]) + edit + string(runes[at:])
			if edit == "" && at < len(runes) {
				mutant = string(runes[:at]) + string(runes[at+1:])
			}
			total++
			if re.MatchString(mutant) {
				matched++
				if err := lc.ValidateSummaryXML([]byte(mutant)); err != nil {
					t.Fatalf("the regex matches %q, which the validator refuses: %v", mutant, err)
				}
			}
		}
	}
	if matched == 0 || matched > total/2 {
		t.Fatalf("%d of %d mutants matched", matched, total)
	}
	// The caveat above: a stray continuation byte matches, and the validator refuses it.
	stray := "<conversation_summary><goal>g\x80</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>"
	if !re.MatchString(stray) || lc.ValidateSummaryXML([]byte(stray)) == nil {
		t.Error("Go's regexp and the validator on bytes that are not UTF-8")
	}
}

func TestRenderSummaryRefusals(t *testing.T) {
	ok := lc.SectionTexts{Goal: "g", State: "s"}
	for _, c := range []struct {
		name string
		s    lc.SectionTexts
		want lc.Status
	}{
		{"blank goal", lc.SectionTexts{Goal: " \u3000\n\t", State: "s"}, lc.StatusSummaryXMLContent},
		{"empty state", lc.SectionTexts{Goal: "g"}, lc.StatusSummaryXMLContent},
		{"NUL", lc.SectionTexts{Goal: "g", Decisions: "a\x00b", State: "s"}, lc.StatusSummaryXMLSyntax},
		{"U+FFFE", lc.SectionTexts{Goal: "g", State: "s", OpenItems: "\ufffe"}, lc.StatusSummaryXMLSyntax},
		{"VT", lc.SectionTexts{Goal: "g", Constraints: "x\x0b", State: "s"}, lc.StatusSummaryXMLSyntax},
		{"not UTF-8", lc.SectionTexts{Goal: "g", Constraints: "a\xffb", State: "s"}, lc.StatusSummaryXMLSyntax},
		{"a surrogate's bytes", lc.SectionTexts{Goal: "\xed\xa0\x80", State: "s"}, lc.StatusSummaryXMLSyntax},
		{"goal before constraints", lc.SectionTexts{Goal: " ", Constraints: "\x00", State: "s"}, lc.StatusSummaryXMLContent},
		{"goal before state", lc.SectionTexts{Goal: "\x00", State: " "}, lc.StatusSummaryXMLSyntax},
		{"constraints before state", lc.SectionTexts{Goal: "g", Constraints: "\xff", State: ""}, lc.StatusSummaryXMLSyntax},
	} {
		xml, err := lc.RenderSummary(c.s)
		var e *lc.Error
		if !errors.As(err, &e) || e.Status != c.want || e.Status.Class() != lc.ClassRetry || xml != "" {
			t.Errorf("%s: %q, %v; want %s", c.name, xml, err, c.want.Name())
		}
	}
	xml, err := lc.RenderSummary(ok)
	want := "<conversation_summary>\n<goal>g</goal>\n<constraints/>\n<decisions/>\n<state>s</state>\n<open_items/>\n</conversation_summary>"
	if err != nil || xml != want {
		t.Fatalf("%q, %v", xml, err)
	}
	// A text that escapes to more than the first guess: the second call of the two-call pattern.
	big := strings.Repeat("<&>", 50_000)
	xml, err = lc.RenderSummary(lc.SectionTexts{Goal: "g", State: big})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := lc.SummarySectionText([]byte(xml), lc.SectionState); err != nil || got != big {
		t.Fatalf("state of %d bytes back: %d bytes, %v", len(xml), len(got), err)
	}
}
