package loopcompact_test

// The round with structured output (SPEC G17.10): CompactOptions.Structured sends the summary's
// JSON Schema, a reply may carry Sections or the JSON object as its Text, and what the model
// filled is rendered, then checked as a text reply is. The expected summary is written out by hand
// from G17.8's layout; the structured note is copied from the SPEC.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// SPEC G17.10 step 1, verbatim.
const structuredNote = "Structured output: instead of the XML document, reply with one JSON object of the given schema: the keys " +
	"goal, constraints, decisions, state and open_items, each a string holding that section's plain text, without " +
	"XML tags and without XML escapes (write &, < and > as they are); goal and state must not be blank."

var structuredSections = lc.SectionTexts{
	Goal:      "Fix the nightly build & keep it green.",
	Decisions: "Use <timeout> of 30s.",
	State:     "The cause was found.",
}

// G17.8 by hand: one LF between elements, &, < and > escaped, empty optional sections self-closed.
const structuredRendered = "<conversation_summary>\n<goal>Fix the nightly build &amp; keep it green.</goal>\n<constraints/>\n" +
	"<decisions>Use &lt;timeout&gt; of 30s.</decisions>\n<state>The cause was found.</state>\n<open_items/>\n" +
	"</conversation_summary>"

func sectionsJSON(t *testing.T, s lc.SectionTexts) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// structuredRound runs Compact over examples/data/input_valid.json (max_summary_tokens 2048) with
// a model answering the replies in order.
func structuredRound(t *testing.T, opts lc.CompactOptions, replies ...lc.SummaryReply) (lc.CompactResult, []lc.SummaryRequest) {
	t.Helper()
	wire, err := os.ReadFile("../../examples/data/input_valid.json")
	if err != nil {
		t.Fatal(err)
	}
	in, err := lc.ParseInput(wire)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var requests []lc.SummaryRequest
	model := func(_ context.Context, req lc.SummaryRequest) (lc.SummaryReply, error) {
		requests = append(requests, req)
		if len(replies) == 0 {
			t.Fatal("the model was called once too often")
		}
		r := replies[0]
		replies = replies[1:]
		return r, nil
	}
	res, err := lc.Compact(context.Background(), in, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, requests
}

func sectionsReply(s lc.SectionTexts, tokens uint64) lc.SummaryReply {
	return lc.SummaryReply{Sections: &s, OutputTokens: tokens, Stop: lc.StopEnd}
}

func textReply(text string, tokens uint64) lc.SummaryReply {
	return lc.SummaryReply{Text: text, OutputTokens: tokens, Stop: lc.StopEnd}
}

func mustCompact(t *testing.T, res lc.CompactResult) *lc.Compacted {
	t.Helper()
	c, ok := res.(*lc.Compacted)
	if !ok {
		t.Fatalf("want *Compacted, got %#v", res)
	}
	return c
}

func mustKeep(t *testing.T, res lc.CompactResult, want lc.Status) *lc.KeepHistory {
	t.Helper()
	k, ok := res.(*lc.KeepHistory)
	if !ok || k.Status != want {
		t.Fatalf("want *KeepHistory with %v, got %#v", want, res)
	}
	return k
}

func TestStructuredRendererMakesTheHandWrittenSummary(t *testing.T) {
	got, err := lc.RenderSummary(structuredSections)
	if err != nil || got != structuredRendered {
		t.Fatalf("RenderSummary = %q, %v", got, err)
	}
}

func TestStructuredRequestsCarryTheSchemaAndTheNote(t *testing.T) {
	res, reqs := structuredRound(t, lc.CompactOptions{Structured: true}, sectionsReply(structuredSections, 80))
	if c := mustCompact(t, res); c.Summary != structuredRendered {
		t.Fatalf("summary %q", c.Summary)
	}
	if reqs[0].JSONSchema != lc.SummaryJSONSchema() || reqs[0].System != lc.SummaryInstructions()+"\n\n"+structuredNote {
		t.Fatalf("request: schema %q, system ends %q", reqs[0].JSONSchema, reqs[0].System[len(reqs[0].System)-80:])
	}
	if lc.StructuredNote != structuredNote {
		t.Fatal("StructuredNote differs from the SPEC")
	}
	var schema struct{ Required []string }
	if err := json.Unmarshal([]byte(reqs[0].JSONSchema), &schema); err != nil || strings.Join(schema.Required, ",") != "goal,constraints,decisions,state,open_items" {
		t.Fatalf("schema required %v, %v", schema.Required, err)
	}
	res, reqs = structuredRound(t, lc.CompactOptions{}, textReply(structuredRendered, 80))
	mustCompact(t, res)
	if reqs[0].JSONSchema != "" || reqs[0].System != lc.SummaryInstructions() {
		t.Fatal("a plain round's request carries the schema or the note")
	}
}

func TestStructuredSectionsAndJSONTextReplies(t *testing.T) {
	for _, structured := range []bool{false, true} {
		res, _ := structuredRound(t, lc.CompactOptions{KeepLast: 1, Structured: structured}, sectionsReply(structuredSections, 61))
		c := mustCompact(t, res)
		if c.Summary != structuredRendered || c.Attempts[0].ReplyBytes != len(structuredRendered) {
			t.Fatalf("summary %q, reply bytes %d", c.Summary, c.Attempts[0].ReplyBytes)
		}
	}
	body := "\n " + sectionsJSON(t, structuredSections) + "\n"
	res, _ := structuredRound(t, lc.CompactOptions{Structured: true}, textReply(body, 80))
	c := mustCompact(t, res)
	if c.Summary != structuredRendered || c.Attempts[0].ReplyBytes != len(body) {
		t.Fatalf("summary %q, reply bytes %d", c.Summary, c.Attempts[0].ReplyBytes)
	}
	// Another key order, non-ASCII, escapes (encoding/json writes < as \u003c).
	other := `{"open_items":"Ship it \u2014 soon.","state":"Done.","decisions":"a \u003c b","constraints":"\t","goal":"G\u00e9"}`
	res, _ = structuredRound(t, lc.CompactOptions{Structured: true}, textReply(other, 9))
	c = mustCompact(t, res)
	for section, want := range map[lc.Section]string{lc.SectionGoal: "G\u00e9", lc.SectionDecisions: "a < b", lc.SectionOpenItems: "Ship it \u2014 soon."} {
		if got, err := lc.SummarySectionText([]byte(c.Summary), section); err != nil || got != want {
			t.Fatalf("section %v = %q, %v", section, got, err)
		}
	}
}

func TestStructuredBlankGoalIsRetriedThenAccepted(t *testing.T) {
	blank := structuredSections
	blank.Goal = " \n\u3000"
	res, reqs := structuredRound(t, lc.CompactOptions{Structured: true}, sectionsReply(blank, 80), textReply(sectionsJSON(t, structuredSections), 80))
	c := mustCompact(t, res)
	if c.Summary != structuredRendered {
		t.Fatalf("summary %q", c.Summary)
	}
	first := c.Attempts[0]
	d := first.Diagnosis
	if first.Status != lc.StatusSummaryXMLContent || first.Class != lc.ClassRetry || d.Section != lc.SectionGoal ||
		d.Rule != "G17.9" || d.Expected != "non-blank text" || d.Location != "summary" || first.ReplyBytes != 0 {
		t.Fatalf("first attempt %+v, diagnosis %+v", first, d)
	}
	turns := reqs[1].Messages
	if len(turns) != 3 || turns[1].Content != lc.WithheldReply || !strings.Contains(turns[2].Content, "in the goal section") ||
		!strings.HasSuffix(turns[2].Content, "\n\n"+structuredNote) || reqs[1].JSONSchema != reqs[0].JSONSchema {
		t.Fatalf("retry request %+v", turns)
	}
}

func TestStructuredRefusalsNameTheirSections(t *testing.T) {
	with := func(f func(*lc.SectionTexts)) lc.SectionTexts {
		s := structuredSections
		f(&s)
		return s
	}
	cases := []struct {
		sections lc.SectionTexts
		status   lc.Status
		section  lc.Section
	}{
		{with(func(s *lc.SectionTexts) { s.State = "" }), lc.StatusSummaryXMLContent, lc.SectionState},
		{with(func(s *lc.SectionTexts) { s.Decisions = "a\x00b" }), lc.StatusSummaryXMLSyntax, lc.SectionDecisions},
		{with(func(s *lc.SectionTexts) { s.OpenItems = "\uFFFE" }), lc.StatusSummaryXMLSyntax, lc.SectionOpenItems},
		{with(func(s *lc.SectionTexts) { s.Constraints = "\xed\xa0\x80" }), lc.StatusSummaryXMLSyntax, lc.SectionConstraints},
	}
	for _, tc := range cases {
		res, _ := structuredRound(t, lc.CompactOptions{Attempts: 1}, sectionsReply(tc.sections, 80))
		if k := mustKeep(t, res, tc.status); k.Attempts[0].Diagnosis.Section != tc.section {
			t.Fatalf("%v: section %v", tc.status, k.Attempts[0].Diagnosis.Section)
		}
	}
	// A lone surrogate escape is the same refusal (encoding/json alone would make it U+FFFD); a
	// pair is a character.
	text := strings.Replace(sectionsJSON(t, with(func(s *lc.SectionTexts) { s.Constraints = "x" })), `"x"`, `"\ud800"`, 1)
	res, _ := structuredRound(t, lc.CompactOptions{Attempts: 1, Structured: true}, textReply(text, 80))
	if k := mustKeep(t, res, lc.StatusSummaryXMLSyntax); k.Attempts[0].Diagnosis.Section != lc.SectionConstraints {
		t.Fatalf("section %v", k.Attempts[0].Diagnosis.Section)
	}
	for _, escaped := range []string{`\udc00x`, `x\ud83d`, `\ud83d\u0041`} {
		text = strings.Replace(sectionsJSON(t, with(func(s *lc.SectionTexts) { s.Decisions = "x" })), `"x"`, `"`+escaped+`"`, 1)
		res, _ = structuredRound(t, lc.CompactOptions{Attempts: 1, Structured: true}, textReply(text, 80))
		mustKeep(t, res, lc.StatusSummaryXMLSyntax)
	}
	text = strings.Replace(sectionsJSON(t, with(func(s *lc.SectionTexts) { s.Decisions = "x" })), `"x"`, `"\\ud800 \ud83d\ude00"`, 1)
	res, _ = structuredRound(t, lc.CompactOptions{Structured: true}, textReply(text, 80))
	c := mustCompact(t, res)
	if got, _ := lc.SummarySectionText([]byte(c.Summary), lc.SectionDecisions); got != `\ud800 😀` {
		t.Fatalf("decisions %q", got)
	}
}

func TestStructuredTextThatIsNotTheObjectIsDiscarded(t *testing.T) {
	whole := sectionsJSON(t, structuredSections)
	shapes := []struct {
		text string
		want lc.Status
	}{
		{"<conversation_summary/>", lc.StatusSummaryWire},
		{"```json\n" + whole + "\n```", lc.StatusSummaryWire},
		{`{"goal": "g",`, lc.StatusSummaryWire},
		{strings.Repeat("[", 100000), lc.StatusSummaryWire},
		{"\uFEFF" + whole, lc.StatusSummaryWire},
		{whole + "\xff", lc.StatusSummaryWire},
		{"[" + whole + "]", lc.StatusSummaryOutputShape},
		{"null", lc.StatusSummaryOutputShape},
		{strings.Replace(whole, `"open_items":""`, `"notes":""`, 1), lc.StatusSummaryOutputShape},
		{strings.Replace(whole, `}`, `,"notes":""}`, 1), lc.StatusSummaryOutputShape},
		{strings.Replace(whole, `"state":"The cause was found."`, `"state":7`, 1), lc.StatusSummaryOutputShape},
		{strings.Replace(whole, `"constraints":""`, `"constraints":null`, 1), lc.StatusSummaryOutputShape},
		{strings.Replace(whole, `"goal"`, `"Goal"`, 1), lc.StatusSummaryOutputShape}, // keys match exactly
	}
	for _, s := range shapes {
		res, reqs := structuredRound(t, lc.CompactOptions{Structured: true}, textReply(s.text, 80), textReply(structuredRendered, 80))
		k := mustKeep(t, res, s.want)
		d := k.Attempts[0].Diagnosis
		if d.Class() != lc.ClassDiscard || d.Rule != "G17.10" || d.Location != "summary" || len(reqs) != 1 {
			t.Fatalf("%.30q: diagnosis %+v, %d requests", s.text, d, len(reqs))
		}
	}
	twice := whole[:len(whole)-1] + `,"goal":"Second goal."}`
	res, _ := structuredRound(t, lc.CompactOptions{Structured: true}, textReply(twice, 80))
	if c := mustCompact(t, res); !strings.Contains(c.Summary, "<goal>Second goal.</goal>") {
		t.Fatalf("summary %q", c.Summary)
	}
}

func TestStructuredTruncatedJSONIsEscalatedAndRetried(t *testing.T) {
	whole := sectionsJSON(t, structuredSections)
	cut := lc.SummaryReply{Text: whole[:50], OutputTokens: 2048, Stop: lc.StopLength}
	res, reqs := structuredRound(t, lc.CompactOptions{Structured: true, MaxTokens: 1000}, cut, textReply(whole, 70))
	c := mustCompact(t, res)
	d := c.Attempts[0].Diagnosis
	if d.Status != lc.StatusReplyTruncated || d.Rule != "R15.4" || d.Limit != 2048 || d.Actual != 2048 {
		t.Fatalf("diagnosis %+v", d)
	}
	if reqs[0].MaxTokens != 1000 || reqs[1].MaxTokens != 2000 || !strings.Contains(reqs[1].Messages[2].Content, "cut off") {
		t.Fatalf("requests %d, %d: %q", reqs[0].MaxTokens, reqs[1].MaxTokens, reqs[1].Messages[2].Content)
	}
}

func TestStructuredTextVerdictsApplyToTheRenderedSummary(t *testing.T) {
	size := uint64(len(structuredRendered))
	res, _ := structuredRound(t, lc.CompactOptions{Structured: true}, sectionsReply(structuredSections, 0))
	mustKeep(t, res, lc.StatusSummaryTokenUsage)
	res, _ = structuredRound(t, lc.CompactOptions{Attempts: 1}, sectionsReply(structuredSections, 2049))
	mustKeep(t, res, lc.StatusSummaryTokenLimit)
	res, _ = structuredRound(t, lc.CompactOptions{Attempts: 2, MaxReplyBytes: size - 1}, sectionsReply(structuredSections, 80), sectionsReply(structuredSections, 80))
	if d := mustKeep(t, res, lc.StatusSummaryByteLimit).Attempts[0].Diagnosis; d.Limit != size-1 || d.Actual != size {
		t.Fatalf("limit %d, actual %d", d.Limit, d.Actual)
	}
	res, _ = structuredRound(t, lc.CompactOptions{MaxReplyBytes: size}, sectionsReply(structuredSections, 80))
	mustCompact(t, res)
}

func TestStructuredNeverAnUnvalidatedSummary(t *testing.T) {
	blank := structuredSections
	blank.Goal = "   "
	res, _ := structuredRound(t, lc.CompactOptions{Structured: true}, sectionsReply(blank, 80), sectionsReply(blank, 80), sectionsReply(blank, 80))
	if k := mustKeep(t, res, lc.StatusSummaryXMLContent); len(k.Attempts) != 3 || !errors.Is(k.Diagnosis, lc.StatusSummaryXMLContent) {
		t.Fatalf("%+v", k)
	}
	// ReshowRejected shows a rejected reply's text when it has one.
	withText := sectionsReply(blank, 80)
	withText.Text = "{}"
	_, reqs := structuredRound(t, lc.CompactOptions{ReshowRejected: true}, withText, sectionsReply(structuredSections, 80))
	if reqs[1].Messages[1].Content != "{}" {
		t.Fatalf("reshown %q", reqs[1].Messages[1].Content)
	}
	_, reqs = structuredRound(t, lc.CompactOptions{ReshowRejected: true}, sectionsReply(blank, 80), sectionsReply(structuredSections, 80))
	if reqs[1].Messages[1].Content != lc.WithheldReply {
		t.Fatalf("reshown %q", reqs[1].Messages[1].Content)
	}
}
