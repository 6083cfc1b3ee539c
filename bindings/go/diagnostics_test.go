package loopcompact_test

// Diagnostics (SPEC §13) through the Go API: a case table derived by hand from C13.2–C13.4 (every
// offset counted by hand from the document written next to it), status classes and the
// errors.Is sentinels, the retry message, the instructions, sections and section text.

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// diagWant is what a case expects of an *Error. Fields named in free are not pinned by the SPEC
// and are not compared.
type diagWant struct {
	status   lc.Status
	section  lc.Section
	offset   uint64
	line     uint64
	column   uint64
	rule     string
	expected string
	location string
	limit    uint64
	actual   uint64
	free     string // comma-separated field names: offset, line, column, rule, expected, section
}

func checkDiag(t *testing.T, name string, err error, w diagWant) {
	t.Helper()
	var e *lc.Error
	if !errors.As(err, &e) {
		t.Errorf("%s: want *Error, got %T %v", name, err, err)
		return
	}
	free := map[string]bool{}
	for _, f := range strings.Split(w.free, ",") {
		free[strings.TrimSpace(f)] = true
	}
	if e.Status != w.status || e.Name != w.status.Name() || e.Reason != w.status.Reason() ||
		e.Message != w.status.Message() {
		t.Errorf("%s: status %v (%s, %q), want %v", name, e.Status, e.Name, e.Reason, w.status)
	}
	type field struct {
		name      string
		got, want any
	}
	for _, f := range []field{
		{"section", e.Section, w.section},
		{"offset", e.Offset, w.offset},
		{"line", e.Line, w.line},
		{"column", e.Column, w.column},
		{"rule", e.Rule, w.rule},
		{"expected", e.Expected, w.expected},
		{"location", e.Location, w.location},
		{"limit", e.Limit, w.limit},
		{"actual", e.Actual, w.actual},
	} {
		if !free[f.name] && f.got != f.want {
			t.Errorf("%s: %s = %v, want %v (%v)", name, f.name, f.got, f.want, err)
		}
	}
}

const (
	root     = `<conversation_summary>` // 22 bytes
	rootEnd  = `</conversation_summary>`
	unknown  = lc.OffsetUnknown
	noLimit  = lc.LimitUnknown
	goalG    = `<goal>g</goal>`   // 14 bytes
	consE    = `<constraints/>`   // 14 bytes
	decE     = `<decisions/>`     // 12 bytes
	stateS   = `<state>s</state>` // 16 bytes
	openE    = `<open_items/>`    // 13 bytes
	fullBody = goalG + consE + decE + stateS + openE
)

func TestDiagnoseSummary(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		want diagWant
	}{
		// C13.4: a section missing: the token found where it was expected (`<decisions` at
		// 22+14 = 36), the section expected and its start tag; X4.18 rejects the token.
		{"missing constraints", root + goalG + decE + stateS + openE + rootEnd,
			diagWant{lc.StatusSummaryXMLStructure, lc.SectionConstraints, 36, 1, 37, "X4.18", "<constraints>", "", noLimit, noLimit, ""}},
		// The root's end tag where open_items was expected: 22+14+14+12+16 = 78.
		{"missing open_items", root + goalG + consE + decE + stateS + rootEnd,
			diagWant{lc.StatusSummaryXMLStructure, lc.SectionOpenItems, 78, 1, 79, "X4.18", "<open_items>", "", noLimit, noLimit, ""}},
		// After open_items: section ROOT, expected the root's end tag; the extra `<goal` at 78+13 = 91.
		{"section after open_items", root + fullBody + goalG + rootEnd,
			diagWant{lc.StatusSummaryXMLStructure, lc.SectionRoot, 91, 1, 92, "X4.18", "</conversation_summary>", "", noLimit, noLimit, ""}},
		// Out of order: state where decisions is expected (22+14+14 = 50).
		{"state before decisions", root + goalG + consE + stateS + decE + openE + rootEnd,
			diagWant{lc.StatusSummaryXMLStructure, lc.SectionDecisions, 50, 1, 51, "X4.18", "<decisions>", "", noLimit, noLimit, ""}},
		// A blank goal (X4.20): the `<` of the goal's start tag (22), non-blank text expected.
		{"blank goal", root + `<goal> </goal>` + consE + decE + stateS + openE + rootEnd,
			diagWant{lc.StatusSummaryXMLContent, lc.SectionGoal, 22, 1, 23, "X4.20", "non-blank text", "", noLimit, noLimit, ""}},
		// A blank state, blank through a reference: its `<` at 22+14+14+12 = 62.
		{"blank state", root + goalG + consE + decE + `<state>&#x20;</state>` + openE + rootEnd,
			diagWant{lc.StatusSummaryXMLContent, lc.SectionState, 62, 1, 63, "X4.20", "non-blank text", "", noLimit, noLimit, ""}},
		// The wrong root: section ROOT, expected <conversation_summary>, at its `<` (0).
		{"wrong root", `<summary>` + fullBody + `</summary>`,
			diagWant{lc.StatusSummaryXMLRoot, lc.SectionRoot, 0, 1, 1, "X4.18", "<conversation_summary>", "", noLimit, noLimit, ""}},
		// An end tag closing the wrong element (X4.12): where it is (22+6+1 = 29), inside goal,
		// expected the end tag that would close it.
		{"wrong end tag", root + `<goal>g</state>`,
			diagWant{lc.StatusSummaryXMLSyntax, lc.SectionGoal, 29, 1, 30, "X4.12", "</goal>", "", noLimit, noLimit, ""}},
		// A bad reference (X4.6) in goal: the `&` at 22+6+2 = 30.
		{"bad reference", root + `<goal>a &#X41; b</goal>` + consE + decE + stateS + openE + rootEnd,
			diagWant{lc.StatusSummaryXMLSyntax, lc.SectionGoal, 30, 1, 31, "X4.6", "", "", noLimit, noLimit, "expected"}},
		// A NUL (X4.8) in state: 22+14+14+12+7+1 = 70.
		{"NUL character", root + goalG + consE + decE + "<state>s\x00</state>" + openE + rootEnd,
			diagWant{lc.StatusSummaryXMLSyntax, lc.SectionState, 70, 1, 71, "X4.8", "", "", noLimit, noLimit, "expected"}},
		// Lines end at LF; the column counts characters, not bytes. `<decisions` is at byte
		// 22+1+2+6+9+7+1+2 = 50 (日本語 is 9 bytes), line 3, column 3.
		{"line and column", root + "\n  <goal>日本語</goal>\n  " + decE,
			diagWant{lc.StatusSummaryXMLStructure, lc.SectionConstraints, 50, 3, 3, "X4.18", "<constraints>", "", noLimit, noLimit, ""}},
		// Same on one line: byte 22+6+9+7 = 44, column 22+6+3+7+1 = 39.
		{"column in characters", root + "<goal>日本語</goal>" + decE,
			diagWant{lc.StatusSummaryXMLStructure, lc.SectionConstraints, 44, 1, 39, "X4.18", "<constraints>", "", noLimit, noLimit, ""}},
		// Text in the root where goal is expected (X4.18 character data at depth 1): 22.
		{"text in the root", root + `x` + fullBody + rootEnd,
			diagWant{lc.StatusSummaryXMLStructure, lc.SectionGoal, 22, 1, 23, "X4.18", "<goal>", "", noLimit, noLimit, ""}},
		// CDATA (X4.3): the `<![CDATA[` at 22+6 = 28. C13.4 does not say which section.
		{"CDATA", root + `<goal><![CDATA[x]]></goal>` + consE + decE + stateS + openE + rootEnd,
			diagWant{lc.StatusSummaryXMLStructure, lc.SectionNone, 28, 1, 29, "X4.3", "", "", noLimit, noLimit, "section,expected"}},
		// The end of the input inside goal (X4.16): found at the end, 22+7 = 29.
		{"end of input in goal", root + `<goal>g`,
			diagWant{lc.StatusSummaryXMLSyntax, lc.SectionGoal, 29, 1, 30, "X4.16", "", "", noLimit, noLimit, "expected"}},
	}
	for _, c := range cases {
		checkDiag(t, c.name, lc.ValidateSummaryXML([]byte(c.doc)), c.want)
		// The section functions report an invalid summary with the same diagnosis.
		_, err := lc.SummarySections([]byte(c.doc))
		checkDiag(t, c.name+" (SummarySections)", err, c.want)
		_, err = lc.SummarySectionText([]byte(c.doc), lc.SectionGoal)
		checkDiag(t, c.name+" (SummarySectionText)", err, c.want)
	}
}

func TestDiagnoseOutput(t *testing.T) {
	in, err := lc.ParseInput([]byte(testWire))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	reply := testOutput()
	n := uint64(len(reply))
	_, err = in.ValidateOutput(reply, 10, n-1)
	checkDiag(t, "byte limit", err, diagWant{lc.StatusSummaryByteLimit, lc.SectionNone, unknown, 0, 0, "O6.2", "", "", n - 1, n, "expected"})
	_, err = in.ValidateOutput(reply, 33, 1<<20) // max_summary_tokens is 32
	checkDiag(t, "token limit", err, diagWant{lc.StatusSummaryTokenLimit, lc.SectionNone, unknown, 0, 0, "O6.2", "", "", 32, 33, "expected"})
	other := strings.Replace(string(reply), `"revision":3`, `"revision":4`, 1)
	_, err = in.ValidateOutput([]byte(other), 10, 1<<20)
	// C13.4: at the first byte of the differing value (the reply is one line of ASCII).
	at := uint64(strings.Index(other, `"revision":4`) + len(`"revision":`))
	checkDiag(t, "identity", err, diagWant{lc.StatusSummaryIdentity, lc.SectionNone, at, 1, at + 1, "", "", "basis.revision", noLimit, noLimit, "rule,expected"})
	// The summary itself: offsets into the decoded summary. testSummary's `<state>` is at
	// 22 + len(`<goal>ship &amp; verify</goal>`) 30 + len(`<constraints></constraints>`) 27 +
	// len(`<decisions></decisions>`) 23 = 102.
	_, err = in.ValidateOutput([]byte(strings.Replace(string(reply), `ready`, ` `, 1)), 10, 1<<20)
	checkDiag(t, "blank state in a reply", err, diagWant{lc.StatusSummaryXMLContent, lc.SectionState, 102, 1, 103, "X4.20", "non-blank text", "summary", noLimit, noLimit, ""})
	if errors.Is(err, lc.ClassDiscard) || !errors.Is(err, lc.ClassRetry) {
		t.Errorf("a blank state is for the summariser to fix: %v", err)
	}
}

func TestDiagnoseDocuments(t *testing.T) {
	// The first block of testWire: its `{` is at byte 270 (the identity part of testWire is 231
	// bytes, then `"transcript":[{"role":"user","blocks":[` 39), `"type"` at 271, its value at
	// 278, the value of "text" at 271+len(`"type":"text","text":`) = 292.
	block := func(b string) []byte {
		return []byte(strings.Replace(testWire, `"type":"text","text":"hello"`, b, 1))
	}
	typeNumber := block(`"type":1,"text":"hello"`)
	checkDiag(t, "block type not a string", lc.ValidateInput(typeNumber),
		diagWant{lc.StatusInputTranscript, lc.SectionNone, 278, 1, 279, "T5.5", "", "transcript[0].blocks[0].type", noLimit, noLimit, "expected"})
	_, err := lc.ParseInput(typeNumber)
	checkDiag(t, "block type not a string (ParseInput)", err,
		diagWant{lc.StatusInputTranscript, lc.SectionNone, 278, 1, 279, "T5.5", "", "transcript[0].blocks[0].type", noLimit, noLimit, "expected"})
	checkDiag(t, "text not a string", lc.ValidateInput(block(`"type":"text","text":1`)),
		diagWant{lc.StatusInputTranscript, lc.SectionNone, 292, 1, 293, "T5.5", "a JSON string", "transcript[0].blocks[0].text", noLimit, noLimit, ""})
	// An unknown key is never shown (C13.1): the path stops at its object; the key at
	// 271+len(`"type":"text","text":"hello",`) = 301 (J5.5).
	checkDiag(t, "unknown key", lc.ValidateInput(block(`"type":"text","text":"hello","x":1`)),
		diagWant{lc.StatusInputTranscript, lc.SectionNone, 301, 1, 302, "J5.5", "", "transcript[0].blocks[0]", noLimit, noLimit, "expected"})
	// An unknown type name: T5.5; C13.4 does not say whether the block or its type is pointed at
	// (the library points at the block).
	checkDiag(t, "unknown block type", lc.ValidateInput(block(`"type":"bogus","text":"hello"`)),
		diagWant{lc.StatusInputTranscript, lc.SectionNone, 0, 0, 0, "T5.5", "", "", noLimit, noLimit, "offset,line,column,location,expected"})
	// A zero field has no offset: its path and its expectation (C13.4).
	zero := strings.Replace(testWire, `"max_summary_tokens":32`, `"max_summary_tokens":0`, 1)
	checkDiag(t, "zero max_summary_tokens", lc.ValidateInput([]byte(zero)),
		diagWant{lc.StatusInputMaxSummaryTokens, lc.SectionNone, unknown, 0, 0, "W5.2", "", "max_summary_tokens", noLimit, noLimit, "expected"})

	policy := `{"Automatic":true,"CounterPolicy":2,"CompactAt":8000,"RearmBelow":0,"ReservedOutput":4096,` +
		`"SafetyMargin":512,"MaxSummaryTokens":2048,"CountTimeout":2000000000,"Hustle":"context.compact"}`
	checkDiag(t, "RearmBelow", lc.ValidateCompactionPolicy([]byte(policy), lc.QualityExactLocal),
		diagWant{lc.StatusPolicyRearmBelow, lc.SectionNone, unknown, 0, 0, "P8.3", "", "RearmBelow", noLimit, noLimit, "expected"})
	config := `{"Compaction":` + policy + `,"ContextObservation":null,"CounterCapability":` + localCounter +
		`,"InferenceCapability":` + localInference + `}`
	checkDiag(t, "nested RearmBelow", lc.ValidateContextConfig([]byte(config)),
		diagWant{lc.StatusPolicyRearmBelow, lc.SectionNone, unknown, 0, 0, "P8.3", "", "Compaction.RearmBelow", noLimit, noLimit, "rule,expected"})
	checkDiag(t, "observation ReservedOutput",
		lc.ValidateContextObservation([]byte(`{"ReservedOutput":0,"SafetyMargin":1,"CountTimeout":1}`), lc.QualityHeuristic),
		diagWant{lc.StatusObservationReservedOutput, lc.SectionNone, unknown, 0, 0, "P8.6", "", "ReservedOutput", noLimit, noLimit, "expected"})
	// The JSON error inside a policy: `"x"` where an integer is (J5.6 or J5.8) at byte 48.
	badJSON := `{"Automatic":true,"CounterPolicy":2,"CompactAt":"x"}`
	checkDiag(t, "policy JSON", lc.ValidateCompactionPolicy([]byte(badJSON), lc.QualityExactLocal),
		diagWant{lc.StatusPolicyWire, lc.SectionNone, 48, 1, 49, "", "", "CompactAt", noLimit, noLimit, "rule,expected"})

	fp := strings.Replace(fingerprintDoc, `"BaseURL":"http://localhost:1234"`, `"BaseURL":"ftp://x"`, 1)
	_, err = lc.RequestFingerprint([]byte(fp))
	checkDiag(t, "BaseURL", err,
		diagWant{lc.StatusFingerprintModel, lc.SectionNone, unknown, 0, 0, "R10.4", "", "Model.BaseURL", noLimit, noLimit, "offset,line,column,expected"})
	if got, err := lc.RequestFingerprint([]byte(fingerprintDoc)); err != nil ||
		got.String() != "f0c4cabef8241dc5e6550b771cc4bed570508cfbc820a697efc8439438bde5e0" {
		t.Errorf("R10.7 worked example: %v, %v", got, err)
	}
}

const (
	zeros32        = `[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]`
	localCounter   = `{"Provider":"","Transport":1,"SecurityIdentity":` + zeros32 + `,"Retention":1,"TokenizerRev":"exact-v1","Quality":2}`
	localInference = `{"Provider":"","Transport":1,"SecurityIdentity":` + zeros32 + `,"Retention":1}`
	// SPEC R10.7's worked example.
	fingerprintDoc = `{"SystemRevision":"system-v1","ToolPolicyRevision":"tools-v1","Model":{"Provider":"lmstudio",` +
		`"APIFormat":"openai","BaseURL":"http://localhost:1234","Name":"m","Origin":0,"Caps":{"AcceptsImages":false,` +
		`"Tools":false,"Thinking":false,"StructuredOutput":false,"StructuredOutputWithTools":false,"ThinkingDialect":"",` +
		`"PromptCaching":false},"Limits":{"WindowTokens":0,"MaxInputTokens":0,"MaxOutputTokens":0},"Sampling":` +
		`{"Temperature":0.5,"TopP":null,"MaxTokens":null,"Stop":null,"Effort":""}},"Basis":{"revision":1,` +
		`"through_event_id":"01000000-0000-0000-0000-000000000000"},"RuntimeContextRevision":"runtime-v1",` +
		`"CounterCapability":` + localCounter + `,"InferenceCapability":` + localInference + `}`
)

func TestBoundaryErrorsHaveNoDiagnosis(t *testing.T) {
	in, err := lc.ParseInput([]byte(testWire))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	_, err = lc.SummarySectionText([]byte(root+fullBody+rootEnd), lc.SectionRoot)
	checkDiag(t, "section ROOT", err, diagWant{lc.StatusInvalidArgument, lc.SectionNone, unknown, 0, 0, "", "", "", noLimit, noLimit, ""})
	_, err = in.EncodeWithin(0)
	checkDiag(t, "too large", err, diagWant{lc.StatusInputTooLarge, lc.SectionNone, unknown, 0, 0, "", "", "", noLimit, noLimit, ""})
	if !errors.Is(err, lc.ClassHost) {
		t.Errorf("too_large is the host's: %v", err)
	}
}

func TestClasses(t *testing.T) {
	// SPEC C13.3, every code of the table.
	want := map[lc.Class][]lc.Status{
		lc.ClassOK: {lc.StatusOK},
		lc.ClassRetry: {lc.StatusSummaryByteLimit, lc.StatusSummaryTokenLimit, lc.StatusSummaryXMLSyntax,
			lc.StatusSummaryXMLRoot, lc.StatusSummaryXMLStructure, lc.StatusSummaryXMLContent,
			lc.StatusReplyTruncated}, // SPEC §15's table
		lc.ClassDiscard: {lc.StatusSummaryWire, lc.StatusSummaryIdentity, lc.StatusSummaryOutputShape,
			lc.StatusSummaryTokenUsage, lc.StatusSummaryTooLarge},
		lc.ClassBug: {lc.StatusPanic},
	}
	class := map[lc.Status]lc.Class{}
	for c, ss := range want {
		for _, s := range ss {
			class[s] = c
		}
	}
	for _, s := range allStatuses {
		c, ok := class[s]
		if !ok {
			c = lc.ClassHost // everything else: boundary, input, policies, limits, fingerprint, §14
		}
		if s.Class() != c {
			t.Errorf("%s: class %s, want %s", s, s.Class(), c)
		}
		if s != lc.StatusOK {
			e := &lc.Error{Status: s}
			if e.Class() != c || !errors.Is(e, c) {
				t.Errorf("%s: errors.Is(err, %s) is false", s, c)
			}
		}
	}
	if lc.Status(12345).Class() != lc.ClassHost {
		t.Errorf("a value not in the table is ClassHost (C13.3)")
	}
	names := map[lc.Class]string{lc.ClassOK: "LC_CLASS_OK", lc.ClassRetry: "LC_CLASS_RETRY",
		lc.ClassDiscard: "LC_CLASS_DISCARD", lc.ClassHost: "LC_CLASS_HOST", lc.ClassBug: "LC_CLASS_BUG", 9: "Class(9)"}
	for c, n := range names {
		if c.String() != n || c.Error() != n {
			t.Errorf("Class %d: %q", int(c), c.String())
		}
	}
}

func TestErrorText(t *testing.T) {
	err := lc.ValidateSummaryXML([]byte(root + goalG + decE))
	want := "loopcompact: LC_SUMMARY_XML_STRUCTURE (xml_structure): " + lc.StatusSummaryXMLStructure.Message() +
		" [line 1, column 37; section constraints; expected <constraints>; rule X4.18]"
	if err.Error() != want {
		t.Errorf("Error() = %q\nwant      %q", err.Error(), want)
	}
	in, _ := lc.ParseInput([]byte(testWire))
	defer in.Close()
	_, err = in.ValidateOutput(testOutput(), 33, 1<<20)
	if !strings.HasSuffix(err.Error(), "[limit 32, actual 33; rule O6.2]") {
		t.Errorf("Error() = %q", err.Error())
	}
	err = lc.ValidateInput([]byte(strings.Replace(testWire, `"type":"text","text":"hello"`, `"type":"SECRET","text":"hello"`, 1)))
	if !strings.Contains(err.Error(), "at transcript[0].blocks[0]") ||
		strings.Contains(err.Error(), "SECRET") {
		t.Errorf("Error() = %q", err.Error())
	}
}

func TestRetryMessage(t *testing.T) {
	err := lc.ValidateSummaryXML([]byte(root + "<goal>SECRET</goal>" + decE))
	var e *lc.Error
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	msg := e.RetryMessage()
	for _, part := range []string{"line 1, column 42", "constraints", "<constraints>", "X4.18"} {
		if !strings.Contains(msg, part) {
			t.Errorf("retry message lacks %q: %q", part, msg)
		}
	}
	if strings.Contains(msg, "SECRET") {
		t.Errorf("retry message echoes the input: %q", msg)
	}
	// Not the summariser's to fix: the message says no retry helps.
	discard := &lc.Error{Status: lc.StatusSummaryIdentity, Offset: lc.OffsetUnknown, Limit: lc.LimitUnknown, Actual: lc.LimitUnknown}
	if m := discard.RetryMessage(); !strings.Contains(m, "No retry is useful") {
		t.Errorf("discard message %q", m)
	}
	// A Rule or Expected that is not the library's own is left out (C13.5).
	forged := *e
	forged.Rule, forged.Expected = "SECRET-RULE", "SECRET-EXPECTED"
	if m := forged.RetryMessage(); strings.Contains(m, "SECRET") || !strings.Contains(m, "line 1, column 42") {
		t.Errorf("forged message %q", m)
	}
	// A byte limit names both numbers. (One that no reply can meet is the host's: R15.2, tested in
	// round_test.go.)
	in, _ := lc.ParseInput([]byte(testWire))
	defer in.Close()
	limit := len(testOutput()) - 1
	_, err = in.ValidateOutput(testOutput(), 10, uint64(limit))
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	m := e.RetryMessage()
	if !strings.Contains(m, " "+strconv.Itoa(limit)+" bytes") || !strings.Contains(m, " "+strconv.Itoa(len(testOutput()))+" bytes") ||
		!strings.Contains(m, "O6.2") || strings.Contains(m, "No retry") {
		t.Errorf("byte limit message %q", m)
	}
}

func TestSummaryInstructions(t *testing.T) {
	s := lc.SummaryInstructions()
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	example := lines[len(lines)-1]
	if err := lc.ValidateSummaryXML([]byte(example)); err != nil {
		t.Errorf("the instructions' example (last line) does not validate: %v\n%s", err, example)
	}
	for _, sec := range lc.Sections {
		if !strings.Contains(s, "<"+sec.String()+">") {
			t.Errorf("instructions do not name <%s>", sec)
		}
	}
	if lc.SummaryInstructions() != s {
		t.Errorf("not stable")
	}
}

func TestSummarySections(t *testing.T) {
	// Offsets counted from the document: `<goal>` 22–28, `<constraints/>` 36–50, `<decisions>`
	// 50–61, `</decisions>` 61, `<state>` 73–80, `</state>` 81, `<open_items/>` 89–102.
	doc := []byte(root + goalG + consE + `<decisions></decisions>` + stateS + openE + rootEnd)
	spans, err := lc.SummarySections(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := [5]lc.Span{{28, 1}, {50, 0}, {61, 0}, {80, 1}, {102, 0}}
	if spans != want {
		t.Errorf("spans %v, want %v", spans, want)
	}
	if got := string(spans[3].Of(doc)); got != "s" {
		t.Errorf("state span holds %q", got)
	}
	// The raw (escaped) content, not the text.
	doc = []byte(root + `<goal>a &amp; b</goal>` + consE + decE + stateS + openE + rootEnd)
	if spans, err = lc.SummarySections(doc); err != nil || string(spans[0].Of(doc)) != "a &amp; b" {
		t.Errorf("goal span %v %v", spans[0], err)
	}
}

func TestSummarySectionText(t *testing.T) {
	doc := []byte(root + "<goal>ship &amp; &lt;verify&gt; &#x263A;\r\nnext\rline&#13;end</goal>" + consE +
		"<decisions>\n  a\n</decisions>" + stateS + openE + rootEnd)
	want := map[lc.Section]string{
		lc.SectionGoal:        "ship & <verify> ☺\nnext\nline\rend",
		lc.SectionConstraints: "",
		lc.SectionDecisions:   "\n  a\n",
		lc.SectionState:       "s",
		lc.SectionOpenItems:   "",
	}
	for sec, w := range want {
		got, err := lc.SummarySectionText(doc, sec)
		if err != nil || got != w {
			t.Errorf("%s: %q, %v; want %q", sec, got, err, w)
		}
	}
	for _, sec := range []lc.Section{lc.SectionNone, lc.SectionRoot, 7, -1} {
		if _, err := lc.SummarySectionText(doc, sec); !errors.Is(err, lc.StatusInvalidArgument) {
			t.Errorf("section %d: %v", sec, err)
		}
	}
	// Longer than the first buffer: the two-call path.
	long := strings.Repeat("x&amp;", 300)
	doc = []byte(root + "<goal>" + long + "</goal>" + consE + decE + stateS + openE + rootEnd)
	if got, err := lc.SummarySectionText(doc, lc.SectionGoal); err != nil || got != strings.Repeat("x&", 300) {
		t.Errorf("long goal: %d bytes, %v", len(got), err)
	}
}
